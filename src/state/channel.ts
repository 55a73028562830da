import type { RedisConnection } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/**
 * A fan-out channel: every message published on any replica reaches every subscriber on every replica, e.g. a
 * service-health change found by the one replica that polls, delivered to subscriptions held by all of them.
 * Delivery is at most once; a subscriber that was not listening misses the message.
 */
export interface FanOut<M> {
  publish(message: M): Promise<void>;
  /** Listens from now on; resolves (with the way to stop) once messages published after it will arrive. */
  subscribe(listener: (message: M) => void): Promise<() => void>;
}

type Listeners = Set<(message: unknown) => void>;

/** The in-process channels of one process, by name. */
export class MemoryChannels {
  private readonly channels = new Map<string, Listeners>();

  listeners(name: string): Listeners {
    let set = this.channels.get(name);
    if (!set) this.channels.set(name, (set = new Set()));
    return set;
  }

  channel<M>(name: string): FanOut<M> {
    const listeners = this.listeners(name);
    return {
      publish(message) {
        deliver(listeners, message);
        return Promise.resolve();
      },
      subscribe(listener) {
        const l = listener as (message: unknown) => void;
        listeners.add(l);
        return Promise.resolve(() => listeners.delete(l));
      },
    };
  }
}

function deliver(listeners: Listeners, message: unknown): void {
  for (const listener of [...listeners]) {
    try {
      listener(message);
    } catch {
      // One failing listener must not keep the message from the others.
    }
  }
}

/**
 * Redis pub/sub on `<prefix>channel:<name>` (messages as JSON) over a second connection, which ioredis re-subscribes
 * after a reconnect. When publishing fails, the message still reaches this replica's own subscribers.
 */
export class RedisChannels {
  private readonly local = new MemoryChannels();
  private listening = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly fallback: FallbackPolicy,
    private readonly subscribeTimeoutMs: number,
  ) {}

  channel<M>(name: string): FanOut<M> {
    const wire = `${this.redis.keyPrefix}channel:${name}`;
    const listeners = this.local.listeners(wire);
    return {
      publish: async (message) => {
        try {
          await this.redis.run('channel.publish', (r) => r.publish(wire, JSON.stringify(message)));
        } catch {
          this.fallback.used('channel');
          deliver(listeners, message);
        }
      },
      subscribe: async (listener) => {
        const l = listener as (message: unknown) => void;
        listeners.add(l);
        const stop = () => {
          listeners.delete(l);
          if (!listeners.size)
            this.subscriber()
              .unsubscribe(wire)
              .catch(() => undefined);
        };
        // A Redis that is down must not hold the caller: the listener is in place, ioredis subscribes on reconnect.
        const subscribed = this.subscriber()
          .subscribe(wire)
          .catch(() => undefined);
        await Promise.race([
          subscribed,
          new Promise((resolve) => setTimeout(resolve, this.subscribeTimeoutMs).unref()),
        ]);
        return stop;
      },
    };
  }

  private subscriber() {
    const connection = this.redis.subscriberConnection();
    if (!this.listening) {
      this.listening = true;
      connection.on('message', (wire: string, text: string) => {
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          return;
        }
        deliver(this.local.listeners(wire), message);
      });
    }
    return connection;
  }
}
