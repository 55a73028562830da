/**
 * Where an answer goes: a promise's two functions, or a caller that takes it on without a promise of its own (a
 * shared flight, inFlight.ts). Each upstream request hands its answer down such a line once, from its dispatch
 * handler (received.ts) through the buffered call (client.ts) and the client's reading of it to the flight.
 */
export interface Settle<A> {
  resolve(answer: A): void;
  reject(error: unknown): void;
}

/**
 * A step of that line that makes its own answer of the one it receives ({@link answerOf}, at once or, where it must
 * wait for something, as a promise) and hands it on; one whose making throws hands on the error.
 */
export abstract class SettleWith<A, B> implements Settle<A> {
  constructor(protected readonly to: Settle<B>) {}

  protected abstract answerOf(answer: A): B | Promise<B>;

  resolve(answer: A): void {
    let made: B | Promise<B>;
    try {
      made = this.answerOf(answer);
    } catch (error) {
      return this.to.reject(error);
    }
    if (made instanceof Promise)
      made.then(
        (value: B) => this.to.resolve(value),
        (error: unknown) => this.to.reject(error),
      );
    else this.to.resolve(made);
  }

  reject(error: unknown): void {
    this.to.reject(error);
  }
}
