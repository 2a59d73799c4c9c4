// Prints ordinary lines and errors to stderr, as a service in a pod would: errors logged with
// console.error (a cause, a multi-line message, an error code and properties), and an uncaught
// error at the end, which Node.js prints after its source line.
'use strict';

const say = (line) => process.stderr.write(line + '\n');

function parse(s) {
  const n = Number(s);
  if (Number.isNaN(n)) {
    throw new TypeError(`not a number: ${s}`);
  }
  return n;
}

function load(order) {
  try {
    return parse(order);
  } catch (err) {
    throw new Error(`cannot load order ${order}`, { cause: err });
  }
}

function validate(qty) {
  const err = new RangeError(`validation failed:\n  field 'qty' must be <= 2\n  got ${qty}`);
  err.code = 'E_QTY';
  throw err;
}

say('2026-12-02T09:00:00Z INFO starting order service');
say('at the end of the day the retry queue was empty');
say('    {"order": 1, "at": "warehouse"}');
try {
  load('x1');
} catch (err) {
  console.error(err);
}
say('2026-12-02T09:00:01Z INFO next order');
try {
  validate(5);
} catch (err) {
  console.error('order failed:', err);
}
say('Error: this line is a message, not a trace');
say('2026-12-02T09:00:02Z INFO shutting down');
setTimeout(() => {
  load('z3');
}, 0);
