/**
 * Bounded work per input. Every limit has a name, a default and an error code.
 * Limits are checked before any other work on the input.
 */
export interface Limits {
  /**
   * Longest input accepted, in UTF-16 code units, checked before parsing (`ERR_TOO_LONG`).
   * Browsers accept about 2 MB; crawlers rarely see more than 8 KiB that are real.
   * @default 16384
   */
  readonly maxLength?: number;
  /**
   * Most path segments accepted after dot-segment removal (`ERR_TOO_MANY_SEGMENTS`). `0` turns it off.
   * @default 0
   */
  readonly maxSegments?: number;
}

export const defaultLimits: Required<Limits> = {
  maxLength: 16384,
  maxSegments: 0,
};
