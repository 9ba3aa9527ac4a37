// Secrets come from stdin or a hidden prompt, never from a flag (shell history, `ps`).
import { CardctlError, usageError } from '../errors.js';

const MAX_STDIN_BYTES = 64 * 1024; // a secret is 44 characters; anything this big is a mistake

type Input = NodeJS.ReadableStream & {
  isTTY?: boolean;
  setRawMode?: (raw: boolean) => unknown;
  pause(): unknown;
  resume(): unknown;
};

/**
 * Reads `labels.length` lines from stdin, each with its newline (\n or \r\n) dropped. From a
 * pipe it reads to the end and refuses extra non-empty lines (a second line silently ignored
 * would be a webhook secret lost); from a terminal it stops after the lines it needs.
 */
export async function readStdinLines(labels: readonly string[], stdin: Input = process.stdin): Promise<string[]> {
  const count = labels.length;
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      stdin.pause();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer | string): void => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(b);
      size += b.length;
      if (size > MAX_STDIN_BYTES) {
        stdin.off('data', onData);
        stdin.pause();
        reject(
          usageError(
            `stdin holds more than ${MAX_STDIN_BYTES} bytes; expected ${count} line(s): ${labels.join(', then ')}.`,
          ),
        );
        return;
      }
      if (stdin.isTTY && Buffer.concat(chunks).toString('utf8').split('\n').length > count) done();
    };
    const onEnd = (): void => done();
    const onError = (err: Error): void =>
      reject(new CardctlError(`cannot read stdin: ${err.message}.`, { kind: 'usage', cause: err }));
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop(); // the last newline
  const wanted = `${count === 1 ? 'one line' : `${count} lines`} on stdin: ${labels.join(', then ')}`;
  if (lines.length < count || lines.slice(0, count).some((l) => l === '')) {
    throw usageError(
      `expected ${wanted}; got ${lines.filter((l) => l !== '').length === 0 ? 'nothing' : `${lines.length} line(s), some empty`}.`,
      'Example: printf \'%s\\n\' "$SECRET" | cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin',
    );
  }
  if (lines.slice(count).some((l) => l.trim() !== '')) {
    const hint =
      count === 1 ? 'To store a webhook secret too, put it on line 2 and pass --webhook-secret-stdin.' : undefined;
    throw usageError(`expected ${wanted}; stdin has more lines.`, hint);
  }
  return lines.slice(0, count);
}

/** Asks on the terminal without echo (raw mode); the question goes to stderr. */
export async function promptHidden(
  question: string,
  stdin: Input = process.stdin,
  out: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  if (!stdin.isTTY || !stdin.setRawMode)
    throw usageError(
      'cannot prompt for a secret: stdin is not a terminal.',
      'Pass --secret-stdin and pipe the secret in.',
    );
  out.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding?.('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const finish = (err?: Error): void => {
        stdin.off('data', onData);
        stdin.pause();
        out.write('\n');
        if (err) reject(err);
        else resolve(value);
      };
      const onData = (chunk: Buffer | string): void => {
        for (const ch of String(chunk)) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
          if (ch === '\u0003') return finish(usageError('cancelled: no secret entered.'));
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else if (ch >= ' ') value += ch;
        }
      };
      stdin.on('data', onData);
      stdin.resume();
    });
  } finally {
    stdin.setRawMode(false);
  }
}
