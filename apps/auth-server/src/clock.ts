// The time source every service reads, so tests can move it (test/helpers/test-clock.ts).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
