// What the CLI prints. Progress (a bar redrawn in place) only on a terminal and without --no-progress; otherwise
// plain lines. --json: nothing but one JSON document on stdout at the end (notes go to stderr). --verbose: request
// lines on stderr, never the key.
interface OutputOptions {
  json: boolean;
  verbose: boolean;
  progress: boolean;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export class Output {
  private barShown = false;
  constructor(readonly opts: OutputOptions) {}

  get tty(): boolean {
    return this.opts.progress && !this.opts.json && Boolean(this.opts.stderr.isTTY);
  }

  /** A line of the command's human result (stdout), unless --json. */
  line(text: string): void {
    if (this.opts.json) return;
    this.clearBar();
    this.opts.stdout.write(`${text}\n`);
  }

  /** A remark about how things go (stderr): retries, waits, approval links. */
  note(text: string): void {
    this.clearBar();
    this.opts.stderr.write(`${text}\n`);
  }

  verbose(text: string): void {
    if (this.opts.verbose) this.note(text);
  }

  /** Progress: a bar on a terminal, else nothing (the caller prints plain milestones with line()). */
  progress(label: string, done: number, total: number): void {
    if (!this.tty) return;
    const width = 30;
    const filled = total > 0 ? Math.round((done / total) * width) : 0;
    this.opts.stderr.write(`\r\x1b[2K${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
    this.barShown = true;
  }

  clearBar(): void {
    if (this.barShown) {
      this.opts.stderr.write('\r\x1b[2K');
      this.barShown = false;
    }
  }

  result(value: unknown): void {
    if (this.opts.json) this.opts.stdout.write(`${JSON.stringify(value)}\n`);
  }
}
