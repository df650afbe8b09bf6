import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The engine's command-line runner, several passes in one JVM: `java -cp ENGINE_CLASSPATH EngineRepeat.java
 * PASSES --query Q --csv F --quiet` calls io.sparkcer.engine.runner.Main.run PASSES times and prints each pass's
 * report ("events: N, matches: M, seconds: S, ...") on stderr, prefixed with "pass i: ". The first pass warms the
 * JIT up; bench/spark_bench.py keeps the best of the others. (Java's source-file mode: no build step.)
 */
public class EngineRepeat {
    public static void main(String[] argv) throws Exception {
        int passes = Integer.parseInt(argv[0]);
        scala.collection.immutable.List<String> args =
            scala.jdk.javaapi.CollectionConverters.asScala(Arrays.asList(argv).subList(1, argv.length)).toList();
        PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
        for (int i = 0; i < passes; i++) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = io.sparkcer.engine.runner.Main.run(args, discard, new PrintStream(err, true, StandardCharsets.UTF_8));
            for (String line : err.toString(StandardCharsets.UTF_8).split("\n")) {
                System.err.println("pass " + i + ": " + line);
            }
            if (status != 0) System.exit(status);
        }
    }
}
