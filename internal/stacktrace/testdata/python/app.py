"""Prints ordinary lines and tracebacks to stderr, as a service in a pod would: chained
tracebacks (explicit cause and during handling), 3.11+ position markers, logging.exception, an
ExceptionGroup tree, and an uncaught error at the end, between lines that look like traceback
lines but are not."""
import logging
import sys
import traceback

logging.basicConfig(stream=sys.stderr, format="%(levelname)s:%(name)s:%(message)s")
log = logging.getLogger("orders")


def say(line):
    print(line, file=sys.stderr, flush=True)


def lookup(data):
    return data["user"]["name"]


def load(order):
    try:
        return lookup({"user": {}})
    except KeyError as e:
        raise RuntimeError(f"cannot load order {order}") from e


def parse(s):
    try:
        return int(s)
    except ValueError:
        return {}["fallback"]


def gather():
    raise ExceptionGroup("two checks failed", [ValueError("qty must be <= 2"), TypeError("price is not a number")])


say("2026-12-02T09:00:00Z INFO starting order service")
say("  File report.txt written")
say("File orders.csv loaded, 3 rows")
say("at the end of the day the retry queue was empty")
try:
    load("x1")
except RuntimeError:
    traceback.print_exc()
say("2026-12-02T09:00:01Z INFO next order")
try:
    parse("x2")
except KeyError:
    log.exception("order x2 failed")
say("    {\"order\": 3, \"at\": \"warehouse\"}")
try:
    gather()
except ExceptionGroup:
    traceback.print_exc()
say("Traceback is a word some people use in prose")
say("2026-12-02T09:00:02Z INFO shutting down")
load("z3")
