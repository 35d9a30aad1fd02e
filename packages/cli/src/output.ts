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

// Terminal control in text from a server (or a proxy before it): an escape sequence (CSI `ESC [ … final`, OSC
// `ESC ] … BEL|ST`, DCS/SOS/PM/APC `ESC P|X|^|_ … ST`, or ESC and one character), a C1 control (8-bit CSI/OSC
// included), any other C0 control but newline and tab, DEL, and the bidirectional overrides and isolates that
// reorder what a reader sees (Trojan Source). They could retitle the window, clear the screen or hide text.
/* eslint-disable no-control-regex -- matching terminal control is what this pattern is for */
const CONTROL = new RegExp(
  [
    /\u001b\[[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?/.source,
    /\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)/.source,
    /\u001b[\s\S]?/.source,
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.source,
    /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.source,
  ].join('|'),
  'g',
);
/* eslint-enable no-control-regex */

/** `text` without terminal control: what the CLI echoes of anything a server said. */
export function printable(text: string): string {
  return text.replace(CONTROL, '');
}

/**
 * `value` as one line of JSON a terminal shows inertly: JSON.stringify escapes C0 controls already; C1 controls and
 * bidirectional controls are escaped too (`\u009b`), so the parsed document is unchanged.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
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
    this.opts.stdout.write(`${printable(text)}\n`);
  }

  /** A remark about how things go (stderr): retries, waits, approval links. */
  note(text: string): void {
    this.clearBar();
    this.opts.stderr.write(`${printable(text)}\n`);
  }

  verbose(text: string): void {
    if (this.opts.verbose) this.note(text);
  }

  /** Progress: a bar on a terminal, else nothing (the caller prints plain milestones with line()). */
  progress(label: string, done: number, total: number): void {
    if (!this.tty) return;
    const width = 30;
    const filled = total > 0 ? Math.round((done / total) * width) : 0;
    this.opts.stderr.write(
      `\r\x1b[2K${printable(label)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`,
    );
    this.barShown = true;
  }

  clearBar(): void {
    if (this.barShown) {
      this.opts.stderr.write('\r\x1b[2K');
      this.barShown = false;
    }
  }

  result(value: unknown): void {
    if (this.opts.json) this.opts.stdout.write(`${jsonLine(value)}\n`);
  }
}
