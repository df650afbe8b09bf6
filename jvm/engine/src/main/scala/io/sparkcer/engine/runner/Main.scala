package io.sparkcer.engine.runner

import java.io.{BufferedWriter, File, OutputStreamWriter}
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.util.control.NonFatal

import io.sparkcer.engine.{EngineOptions, Event, LocalEngine, Match}
import io.sparkcer.engine.ceql.CeqlException
import io.sparkcer.engine.predicate.Values

/**
 * The engine's command-line runner: a CEQL query over a CSV file, one JSON line per match on stdout, and the
 * event count, match count and throughput on stderr. The stream order is the query's ORDER BY (or its WITHIN
 * column, or --time-column), sorted stably so that ties keep the file's row order.
 *
 * {{{
 * engine-run --query sql/stocks/s3.ceql --csv stocks.csv [--time-column stock_time] [--type-column event_type] [--quiet]
 * }}}
 */
object Main {
  def main(args: Array[String]): Unit = {
    val options = parse(args.toList, Map.empty)
    def required(k: String) = options.getOrElse(k, usage(s"missing --$k"))
    val status =
      try { run(required("query"), required("csv"), options); 0 }
      catch {
        case e: CeqlException => System.err.println(s"error: ${e.getMessage}"); 2
        case NonFatal(e) =>
          System.err.println(s"error: ${e.getMessage}")
          if (options.contains("debug")) e.printStackTrace()
          1
      }
    System.exit(status)
  }

  private def run(queryFile: String, csv: String, options: Map[String, String]): Unit = {
    val query = new String(Files.readAllBytes(new File(queryFile).toPath), StandardCharsets.UTF_8)
    val (columns, rows) = new CsvSource(new File(csv)).read()
    val engineOptions = EngineOptions(
      typeColumn = options.getOrElse("type-column", "event_type"),
      timeColumn = options.get("time-column"))
    val compiled = LocalEngine.compile(query, columns, engineOptions)
    val analyzed = compiled.pattern.analyzed
    val order = analyzed.orderKeys.headOption.map(_._1)
      .orElse(analyzed.window.map(_.key).collect { case io.sparkcer.engine.analysis.WindowKey.Column(i, _) => i })
      .orElse(engineOptions.timeColumn.map(t => columns.indexWhere(_.equalsIgnoreCase(t))))
    val keys = if (analyzed.orderKeys.nonEmpty) analyzed.orderKeys else order.map(_ -> false).toIndexedSeq
    val ordered = rows.sortWith { (a, b) =>
      keys.iterator.map { case (i, desc) => val c = Values.compare(a(i), b(i)); if (desc) -c else c }
        .find(c => c != 0 && c != Values.Incomparable).exists(_ < 0)
    }

    val out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16)
    val quiet = options.contains("quiet")
    val line = new java.lang.StringBuilder
    val started = System.nanoTime()
    var matches = 0L
    compiled.run(ordered.iterator).foreach { m =>
      matches += 1
      if (!quiet) {
        line.setLength(0)
        render(m, columns, analyzed.partitionKeys.map(_.head), order, compiled.outputVariables, analyzed.outputs.map(_.single), line)
        out.write(line.toString); out.newLine()
      }
    }
    out.flush()
    val seconds = (System.nanoTime() - started) / 1e9
    val m = compiled.metrics
    System.err.println(f"events: ${m.events}%d, matches: $matches%d, seconds: $seconds%.3f, events/s: ${m.events / seconds}%.0f" +
      (if (m.droppedNullKey > 0) s", left out (NULL partition or order key): ${m.droppedNullKey}" else ""))
    System.err.println(s"automaton: ${compiled.pattern.describe}; peak active states ${m.peakActiveStates}, peak tECS nodes ${m.peakLiveNodes}")
  }

  private def render(m: Match, columns: IndexedSeq[String], partitionColumns: IndexedSeq[Int], order: Option[Int],
      variables: IndexedSeq[String], single: IndexedSeq[Boolean], out: java.lang.StringBuilder): Unit = {
    def event(e: Event)(o: java.lang.StringBuilder): Unit =
      JsonWriter.obj(columns.indices.map(i => columns(i) -> ((b: java.lang.StringBuilder) => JsonWriter.value(e.values(i), b))), o)
    val partition = partitionColumns.indices.map(i =>
      columns(partitionColumns(i)) -> ((b: java.lang.StringBuilder) => JsonWriter.value(m.partition(i), b)))
    val bounds = Seq(
      "match_start" -> ((b: java.lang.StringBuilder) => JsonWriter.value(order.fold[Any](m.start.seq)(m.start.values(_)), b)),
      "match_end" -> ((b: java.lang.StringBuilder) => JsonWriter.value(order.fold[Any](m.end.seq)(m.end.values(_)), b)))
    val bound = variables.indices.map { v =>
      variables(v) -> ((b: java.lang.StringBuilder) => {
        if (single(v) && m.bindings(v).size == 1) event(m.bindings(v).head)(b)
        else {
          b.append('[')
          m.bindings(v).zipWithIndex.foreach { case (e, i) => if (i > 0) b.append(", "); event(e)(b) }
          b.append(']')
        }
        ()
      })
    }
    JsonWriter.obj(partition ++ bounds ++ bound, out)
  }

  private def parse(args: List[String], acc: Map[String, String]): Map[String, String] = args match {
    case Nil => acc
    case ("--quiet" | "--debug") :: rest => parse(rest, acc + (args.head.drop(2) -> ""))
    case flag :: value :: rest if flag.startsWith("--") => parse(rest, acc + (flag.drop(2) -> value))
    case other => usage(s"unexpected argument: ${other.mkString(" ")}")
  }

  private def usage(problem: String): Nothing = {
    System.err.println(s"$problem\nusage: engine-run --query FILE --csv FILE [--time-column COL] [--type-column COL] [--quiet] [--debug]")
    System.exit(2)
    throw new IllegalStateException
  }
}
