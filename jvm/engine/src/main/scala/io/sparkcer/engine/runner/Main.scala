package io.sparkcer.engine.runner

import java.io.{BufferedWriter, File, OutputStreamWriter, PrintStream}
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.util.control.NonFatal

import io.sparkcer.engine.{EngineOptions, Event, LocalEngine, Match}
import io.sparkcer.engine.analysis.OutputVariable
import io.sparkcer.engine.eval.MatchBound
import io.sparkcer.engine.expr.Values
import io.sparkcer.engine.syntax.PatternException

/**
 * The engine's command-line runner: a CEQL query over a CSV file, one JSON line per match on stdout, and the
 * event count, match count and throughput on stderr. The stream order is the query's ORDER BY (or its WITHIN
 * column, or --time-column), sorted stably so that ties keep the file's row order. One event may complete at most
 * --max-matches-per-event matches, and the partial matches of a partition hold at most --max-partial-match-nodes tECS
 * nodes ([[MatchBound]]); past either the run fails, saying what to write instead.
 * A chain of single events with conditions runs lazily or with registers, whichever costs less on each partition;
 * --eager runs it with registers, --lazy lazily (to compare).
 * --no-pcea evaluates equalities as any other condition, not by a PCEA (to compare).
 *
 * {{{
 * engine-run --query sql/stocks/s3.ceql --csv stocks.csv [--time-column stock_time] [--type-column event_type]
 *   [--max-matches-per-event N] [--max-partial-match-nodes N] [--eager | --lazy] [--no-pcea] [--quiet]
 * }}}
 */
object Main {
  private val MaxMatchesFlag = "max-matches-per-event"
  private val MaxNodesFlag = "max-partial-match-nodes"

  def main(args: Array[String]): Unit = System.exit(run(args.toIndexedSeq, System.out, System.err))

  /** Runs the command line; returns the exit status (0 done, 1 failed, 2 a bad query or bad arguments). */
  def run(args: Seq[String], stdout: PrintStream, stderr: PrintStream): Int =
    parse(args.toList, Map.empty) match {
      case Left(problem) =>
        stderr.println(s"$problem\nusage: engine-run --query FILE --csv FILE [--time-column COL] [--type-column COL] " +
          s"[--$MaxMatchesFlag N] [--$MaxNodesFlag N] [--eager | --lazy] [--no-pcea] [--quiet] [--debug]")
        2
      case Right(options) =>
        try { execute(options, stdout, stderr); 0 }
        catch {
          case e: PatternException => stderr.println(s"error: ${e.getMessage}"); 2
          case NonFatal(e) =>
            stderr.println(s"error: ${e.getMessage}")
            if (options.contains("debug")) e.printStackTrace(stderr)
            1
        }
    }

  private def execute(options: Map[String, String], stdout: PrintStream, stderr: PrintStream): Unit = {
    val query = new String(Files.readAllBytes(new File(options("query")).toPath), StandardCharsets.UTF_8)
    val (columns, rows) = new CsvSource(new File(options("csv"))).read()
    val engineOptions = EngineOptions(
      typeColumn = options.getOrElse("type-column", "event_type"),
      timeColumn = options.get("time-column"),
      lazyChains = !options.contains("eager"),
      equalityPcea = !options.contains("no-pcea"),
      chainsByCost = !options.contains("lazy")
    )
    val matchBound = MatchBound(
      options.get(MaxMatchesFlag).fold(MatchBound.DefaultPerEvent)(_.toLong),
      s"--$MaxMatchesFlag",
      options.get(MaxNodesFlag).fold(MatchBound.DefaultNodes)(_.toInt),
      s"--$MaxNodesFlag"
    )
    val compiled = LocalEngine.compile(query, columns, engineOptions, matchBound)
    val analyzed = compiled.pattern.analyzed
    val ordered = rows.sortWith((a, b) => compareRows(analyzed.streamOrder, a, b) < 0)

    val out = new BufferedWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8), 1 << 16)
    val quiet = options.contains("quiet")
    val line = new java.lang.StringBuilder
    val started = System.nanoTime()
    var matches = 0L
    compiled.run(ordered.iterator).foreach { m =>
      matches += 1
      if (!quiet) {
        line.setLength(0)
        render(m, columns, analyzed.partitionKeys.take(analyzed.declaredKeys).map(_.head), analyzed.streamOrder.head._1,
          analyzed.outputs, line)
        out.write(line.toString); out.newLine()
      }
    }
    out.flush()
    val seconds = (System.nanoTime() - started) / 1e9
    val m = compiled.metrics
    stderr.println(
      f"events: ${m.events}%d, matches: $matches%d, seconds: $seconds%.3f, events/s: ${m.events / seconds}%.0f" +
        (if (m.droppedNullKey > 0) s", left out (NULL partition or order key): ${m.droppedNullKey}" else ""))
    stderr.println(
      s"automaton: ${compiled.pattern.describe}; peak active states ${m.peakActiveStates}, peak tECS nodes ${m.peakLiveNodes}")
    stderr.println(s"work: ${m.work.describe}")
    if (!m.chainDecisions.isEmpty) stderr.println(s"chain: ${m.chainDecisions.describe}")
  }

  /** The stream order: NULLs first, so that the order is total and the sort stable. */
  private def compareRows(keys: Seq[(Int, Boolean)], a: Array[Any], b: Array[Any]): Int =
    keys.iterator.map { case (i, descending) =>
      val c = (a(i), b(i)) match {
        case (null, null) => 0
        case (null, _) => -1
        case (_, null) => 1
        case (x, y) =>
          Values.compare(x, y) match { case Values.Incomparable => x.toString.compareTo(y.toString); case c => c }
      }
      if (descending) -c else c
    }.find(_ != 0).getOrElse(0)

  private def render(m: Match, columns: IndexedSeq[String], partitionColumns: IndexedSeq[Int], order: Int,
      outputs: IndexedSeq[OutputVariable], out: java.lang.StringBuilder): Unit = {
    def event(e: Event, attributes: IndexedSeq[Int])(o: java.lang.StringBuilder): Unit = {
      val shown = if (attributes.isEmpty) columns.indices else attributes
      JsonWriter.obj(
        shown.map(i => columns(i) -> ((b: java.lang.StringBuilder) => JsonWriter.value(e.values(i), b))), o)
    }
    val partition = partitionColumns.indices.map(i =>
      columns(partitionColumns(i)) -> ((b: java.lang.StringBuilder) => JsonWriter.value(m.partition(i), b)))
    val bounds = Seq(
      "match_start" -> ((b: java.lang.StringBuilder) => JsonWriter.value(m.start.values(order), b)),
      "match_end" -> ((b: java.lang.StringBuilder) => JsonWriter.value(m.end.values(order), b))
    )
    val bound = outputs.indices.map { v =>
      val output = outputs(v)
      output.name -> ((b: java.lang.StringBuilder) => {
        if (output.single) event(m.bindings(v).head, output.attributes)(b)
        else {
          b.append('[')
          m.bindings(v).zipWithIndex.foreach { case (e, i) =>
            if (i > 0) b.append(", "); event(e, output.attributes)(b)
          }
          b.append(']')
        }
        ()
      })
    }
    JsonWriter.obj(partition ++ bounds ++ bound, out)
  }

  private def parse(args: List[String], acc: Map[String, String]): Either[String, Map[String, String]] = args match {
    case Nil =>
      Seq("query", "csv").find(!acc.contains(_)).map(k => s"missing --$k")
        .orElse(
          acc.get(MaxMatchesFlag).filterNot(_.toLongOption.exists(_ >= 1))
            .map(n => s"--$MaxMatchesFlag takes a whole number of at least 1, not '$n'"))
        .orElse(
          acc.get(MaxNodesFlag).filterNot(_.toIntOption.exists(_ >= 1))
            .map(n => s"--$MaxNodesFlag takes a whole number from 1 to ${Int.MaxValue}, not '$n'"))
        .orElse(
          Some("--eager and --lazy exclude each other: give one").filter(_ =>
            acc.contains("eager") && acc.contains("lazy")))
        .toLeft(acc)
    case (flag @ ("--quiet" | "--debug" | "--eager" | "--lazy" | "--no-pcea")) :: rest =>
      parse(rest, acc + (flag.drop(2) -> ""))
    case flag :: value :: rest if flag.startsWith("--") => parse(rest, acc + (flag.drop(2) -> value))
    case other => Left(s"unexpected argument: ${other.mkString(" ")}")
  }
}
