// What a test file imports for `ava` when a whole run batches it with others in one worker (scripts/test-batches.ts
// rewrites the import in the compiled tree; run alone, a file imports AVA itself). It is AVA's own chain, with the
// file's name put before each test's title: titles stay unique across the batch, and a failure names its file
// (`batch-2 › translator-keys › search, read, edit…`). The name comes from this module's address
// (`batch-member.js?file=translator-keys`), which gives each file a module instance of its own.
import test from 'ava';

const file = new URL(import.meta.url).searchParams.get('file') ?? '';

/** `declare` with the file's name before a string title (a macro's own title function is left alone). */
function named<F extends (...args: never[]) => unknown>(declare: F): F {
  const call = (title: unknown, ...rest: unknown[]) =>
    (declare as unknown as (...args: unknown[]) => unknown)(
      typeof title === 'string' ? `${file} › ${title}` : title,
      ...rest,
    );
  // The chain's other members (hooks, `skip`, `failing`…) stay AVA's own.
  return Object.assign(call, declare);
}

const batched = Object.assign(named(test), { serial: named(test.serial) });
export default batched;
