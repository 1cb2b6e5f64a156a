/** Bad limit params or a bad check request; `field` names the offending input, for 400 bodies. */
export class InvalidLimitParamsError extends Error {
  override readonly name = 'InvalidLimitParamsError';

  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}
