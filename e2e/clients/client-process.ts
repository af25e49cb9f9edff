import { spawn, type ChildProcess } from "node:child_process";

export type ClientEvent = Record<string, unknown> & { event: string };

/** A client program under test, speaking one JSON event per stdout line (or plain text: see `stdout`). */
export class ClientProcess {
  readonly events: ClientEvent[] = [];
  /** Everything it printed, for programs that print text (the examples). */
  stdout = "";
  private stderr = "";
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;

  constructor(command: string, args: string[], env: Record<string, string>) {
    this.child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let buffer = "";
    this.child.stdout!.on("data", (chunk: Buffer) => {
      this.stdout += chunk.toString("utf8");
      buffer += chunk.toString("utf8");
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line.startsWith("{")) this.events.push(JSON.parse(line) as ClientEvent);
      }
    });
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  async next(event: string, timeoutMs = 30_000): Promise<ClientEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find((e) => e.event === event);
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`client exited (${this.child.exitCode}) before "${event}": ${this.stderr} ${JSON.stringify(this.events)}`);
      if (Date.now() > deadline) throw new Error(`no "${event}" within ${timeoutMs} ms: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits until it has printed something matching `pattern`. */
  async printed(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.stdout.match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null) throw new Error(`exited (${this.child.exitCode}) before printing ${pattern}: ${this.stdout}\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`did not print ${pattern} within ${timeoutMs} ms: ${this.stdout}\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async exit(): Promise<{ code: number | null; stderr: string; stdout: string }> {
    const code = await this.exited;
    return { code, stderr: this.stderr, stdout: this.stdout };
  }

  kill() {
    if (this.child.exitCode === null) this.child.kill("SIGTERM");
  }
}
