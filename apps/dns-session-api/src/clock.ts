// The time source every service reads, so tests can move it (test/helpers/server.ts TestClock).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
