import { DynamicModule, Logger, Module, type InjectionToken, type ModuleMetadata, type OptionalFactoryDependency, type Provider } from '@nestjs/common';
import { KeyVerifier, type KeyVerifierOptions } from './key-verifier';
import { TollgateGuard } from './tollgate-guard';

/** KeyVerifierOptions; `redis` is a connection (duplicated for pub/sub) or a URL. */
export type TollgateGuardOptions = KeyVerifierOptions;

export interface TollgateGuardModuleOptions extends TollgateGuardOptions {
  /** Register the module globally so any module can use TollgateGuard / KeyVerifier. Default true. */
  isGlobal?: boolean;
}

export interface TollgateGuardModuleAsyncOptions {
  imports?: ModuleMetadata['imports'];
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  useFactory: (...args: never[]) => TollgateGuardOptions | Promise<TollgateGuardOptions>;
  isGlobal?: boolean;
}

export const TOLLGATE_GUARD_OPTIONS = Symbol('TOLLGATE_GUARD_OPTIONS');

const verifierProvider: Provider = {
  provide: KeyVerifier,
  inject: [TOLLGATE_GUARD_OPTIONS],
  useFactory: async (options: TollgateGuardOptions): Promise<KeyVerifier> => {
    const verifier = new KeyVerifier({ ...options, logger: options.logger ?? new Logger('TollgateGuard') });
    await verifier.start();
    return verifier;
  },
};

/**
 * Provides KeyVerifier (closed with the app) and TollgateGuard. Use the guard with
 * `@UseGuards(TollgateGuard)`; register GuardRejectionFilter for problem+json refusals.
 */
@Module({})
export class TollgateGuardModule {
  static forRoot(options: TollgateGuardModuleOptions): DynamicModule {
    const { isGlobal, ...verifierOptions } = options;
    return {
      module: TollgateGuardModule,
      global: isGlobal ?? true,
      providers: [{ provide: TOLLGATE_GUARD_OPTIONS, useValue: verifierOptions }, verifierProvider, TollgateGuard],
      exports: [KeyVerifier, TollgateGuard],
    };
  }

  static forRootAsync(options: TollgateGuardModuleAsyncOptions): DynamicModule {
    return {
      module: TollgateGuardModule,
      global: options.isGlobal ?? true,
      imports: options.imports ?? [],
      providers: [
        { provide: TOLLGATE_GUARD_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory as (...args: unknown[]) => TollgateGuardOptions | Promise<TollgateGuardOptions> },
        verifierProvider,
        TollgateGuard,
      ],
      exports: [KeyVerifier, TollgateGuard],
    };
  }
}
