import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import type { Redis } from "ioredis";
import { appendUnlessFenced } from "./attempt-fence.js";

/**
 * Copies a growing trajectory file into Redis every second (only the new bytes), so that the trajectory
 * of an attempt whose worker dies can still be archived by the coordinator. Once the coordinator has
 * fenced the attempt off (given it up), nothing more is copied and `onFenced` is called once.
 */
export class TrajectoryMirror {
  private offset = 0;
  private timer: NodeJS.Timeout | null = null;
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly file: string,
    private readonly key: string,
    private readonly resultKey: string,
    private readonly onFenced: () => void,
  ) {}

  private fenced = false;

  start(): void {
    this.timer = setInterval(() => {
      this.busy = this.busy.then(() => this.flush()).catch(() => undefined);
    }, 1000);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.busy;
  }

  private async flush(): Promise<void> {
    if (this.fenced || !existsSync(this.file)) return;
    const size = statSync(this.file).size;
    if (size <= this.offset) return;
    const buf = Buffer.alloc(size - this.offset);
    const fd = openSync(this.file, "r");
    try {
      readSync(fd, buf, 0, buf.length, this.offset);
    } finally {
      closeSync(fd);
    }
    if (await appendUnlessFenced(this.redis, this.key, this.resultKey, buf)) {
      this.offset = size;
      return;
    }
    this.fenced = true;
    this.onFenced();
  }
}
