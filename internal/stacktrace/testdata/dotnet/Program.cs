// Prints ordinary lines and .NET exceptions to stderr, as a service in a pod would: one logged
// with Microsoft.Extensions.Logging's console logger, one printed with its ToString (an inner
// exception, an async frame), and an unhandled one at the end. See README.md: output.txt was not
// produced by running this program.
using Microsoft.Extensions.Logging;

using var factory = LoggerFactory.Create(b => b.AddConsole(o => o.LogToStandardErrorThreshold = LogLevel.Trace));
var log = factory.CreateLogger("Orders");

static int Parse(string s) => int.Parse(s);

static int Load(string order)
{
    try { return Parse(order); }
    catch (FormatException e) { throw new InvalidOperationException($"cannot load order {order}", e); }
}

static async Task ValidateAsync(int qty)
{
    await Task.Yield();
    if (qty > 2) throw new ArgumentOutOfRangeException(nameof(qty), qty, "validation failed:\n  field 'qty' must be <= 2");
}

Console.Error.WriteLine("2026-12-02T09:00:00Z INFO starting order service");
Console.Error.WriteLine("at the end of the day the retry queue was empty");
Console.Error.WriteLine("   {\"order\": 1, \"at\": \"warehouse\"}");
try { Load("x1"); }
catch (InvalidOperationException e) { log.LogError(e, "order x1 failed"); }
Console.Error.WriteLine("2026-12-02T09:00:01Z INFO next order");
try { Task.WhenAll(ValidateAsync(5)).Wait(); }
catch (AggregateException e) { Console.Error.WriteLine(e); }
Console.Error.WriteLine("System.Exception: is how this line begins, and nothing follows");
Console.Error.WriteLine("2026-12-02T09:00:02Z INFO shutting down");
Load("z3");
