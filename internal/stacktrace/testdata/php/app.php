<?php
// Prints ordinary lines and PHP exceptions to stderr, as a service in a pod would: an exception
// logged with error_log (its string form: message, "Stack trace:", "#N" frames), and an
// uncaught exception with a previous one at the end, which PHP reports as a fatal error.

class OrderException extends RuntimeException {}

function parse(string $s): int {
    if (!is_numeric($s)) {
        throw new InvalidArgumentException("not a number: $s");
    }
    return (int)$s;
}

function load(string $order): int {
    try {
        return parse($order);
    } catch (InvalidArgumentException $e) {
        throw new OrderException("cannot load order $order", 0, $e);
    }
}

function validate(int $qty): void {
    if ($qty > 2) {
        throw new DomainException("validation failed:\n  field 'qty' must be <= 2\n  got $qty");
    }
}

function say(string $line): void {
    fwrite(STDERR, $line . "\n");
}

say('2026-12-02T09:00:00Z INFO starting order service');
say('at the end of the day the retry queue was empty');
say('#1 customer of the day: ACME');
say('    {"order": 1, "at": "warehouse"}');
try {
    validate(5);
} catch (DomainException $e) {
    error_log("order failed: " . $e);
}
say('2026-12-02T09:00:01Z INFO next order');
say('Stack trace: none, this line is prose');
say('2026-12-02T09:00:02Z INFO shutting down');
load('z3');
