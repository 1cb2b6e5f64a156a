export * from './limits';
export * from './errors';
export * from './plans';
export * from './keys';
export * from './auth';
export * from './audit';
export * from './health';
export * from './openapi';
