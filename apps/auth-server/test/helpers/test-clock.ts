// A clock tests move instead of sleeping. Starts at the real current time.
import type { Clock } from '../../src/clock';

export class TestClock implements Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): void {
    this.current += seconds * 1000;
  }

  set(date: Date): void {
    this.current = date.getTime();
  }
}
