// Prints ordinary lines and stack traces to stderr, as a service in a pod would: traces printed by
// the runtime (printStackTrace, an uncaught exception in a thread and in main) and by
// java.util.logging, with causes, suppressed exceptions and a multi-line message, between lines
// that look like trace lines but are not.
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

public class Main {
    static class OrderException extends RuntimeException {
        OrderException(String message, Throwable cause) { super(message, cause); }
    }

    static int parse(String s) { return Integer.parseInt(s); }

    static int load(String s) {
        try {
            return parse(s);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("cannot load order " + s, e);
        }
    }

    static void process(String s) {
        try {
            load(s);
        } catch (IllegalStateException e) {
            throw new OrderException("order failed", e);
        }
    }

    static void validate(int n) {
        if (n > 2) {
            throw new IllegalArgumentException("validation failed:\n  field 'qty' must be <= 2\n  got " + n);
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT %4$s %3$s %5$s%6$s%n");
        Logger log = Logger.getLogger("orders");
        log.setUseParentHandlers(false);
        ConsoleHandler h = new ConsoleHandler();
        h.setFormatter(new SimpleFormatter());
        log.addHandler(h);

        System.err.println("2026-12-02T09:00:00Z INFO starting order service");
        System.err.println("at the end of the day the retry queue was empty");
        System.err.println("File orders.csv loaded, 3 rows");
        System.err.println("    {\"order\": 1, \"at\": \"warehouse\"}");
        try {
            process("x1");
        } catch (OrderException e) {
            e.printStackTrace();
        }
        System.err.println("2026-12-02T09:00:01Z INFO next order");
        try {
            validate(5);
        } catch (IllegalArgumentException e) {
            IllegalArgumentException withSuppressed = e;
            withSuppressed.addSuppressed(new java.io.IOException("close failed"));
            e.printStackTrace();
        }
        System.err.println("Error: this line is a message, not a trace");
        System.err.println("2026-12-02T09:00:02Z INFO still running");
        try {
            process("y2");
        } catch (OrderException e) {
            log.log(Level.SEVERE, "order y2 failed", e);
        }
        Thread t = new Thread(() -> { throw new UnsupportedOperationException("worker cannot do that"); }, "worker-1");
        t.start();
        t.join();
        System.err.println("2026-12-02T09:00:03Z INFO shutting down");
        process("z3");
    }
}
