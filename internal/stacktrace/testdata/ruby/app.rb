# Prints ordinary lines and Ruby backtraces to stderr, as a service in a pod would: an exception
# logged with Logger, one printed with full_message (a cause, a multi-line message), and an
# uncaught error at the end.
require 'logger'

$stderr.sync = true
LOG = Logger.new($stderr)

class OrderError < StandardError; end

def parse(s)
  Integer(s)
end

def load(order)
  parse(order)
rescue ArgumentError
  raise OrderError, "cannot load order #{order}"
end

def validate(qty)
  raise ArgumentError, "validation failed:\n  field 'qty' must be <= 2\n  got #{qty}" if qty > 2
end

def say(line)
  $stderr.puts line
end

say '2026-12-02T09:00:00Z INFO starting order service'
say 'at the end of the day the retry queue was empty'
say 'from the warehouse: 3 parcels'
say '    {"order": 1, "at": "warehouse"}'
begin
  load('x1')
rescue OrderError => e
  LOG.error(e)
end
say '2026-12-02T09:00:01Z INFO next order'
begin
  validate(5)
rescue ArgumentError => e
  say e.full_message(highlight: false)
end
say 'app.rb is where this line was written'
say '2026-12-02T09:00:02Z INFO shutting down'
load('z3')
