package io.sparkcer.bench

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import io.sparkcer.engine.{EngineOptions, Event, LocalEngine}

import io.sparkcer.engine.expr.{ExprInterpreter, ExprParser}
import io.sparkcer.engine.runner.CsvSource

/**
 * The engine alone on CORE's stock workload (CORE paper §5, Appendix D): sequences of length 3 to 24 with and
 * without output, and the length-3 no-output query with windows T..4T, each against a floor that reads the same
 * events and evaluates one predicate per event; then the correlated workloads (conditions relating events), each
 * as planned and, where a chain may run lazily, on the lazy chain alone and on registers alone too, with
 * the chains the lazy chain alone once blew up on (a synthetic stream). Every figure is the best of
 * several passes after three warm-up passes, all taken in one JVM so that ratios compare like with like.
 *
 * {{{
 * make bench-engine    # or: build/sbt "bench/run <stocks.csv[.gz]> [passes] [chains | strategies | equality | windows]"
 * }}}
 * With `chains`, `strategies`, `equality` or `windows`, only the chains' tables, the selection strategies against ALL,
 * the PCEA's tables, or the window-growth cases at windows T, 10T, 100T ([[WindowGrowth]]) are measured, printed and not
 * written to the report: `make bench-engine ARGS="5 equality"`.
 */
object EngineBenchmark {
  /**
   * One workload's best pass: events per second of wall time, and per second of the evaluating thread's CPU time, which
   * other processes on a shared machine disturb less (the collector's threads are left out of it).
   */
  private[bench] final case class Result(name: String, matches: Long, eventsPerSecond: Double,
      eventsPerCpuSecond: Double,
      peakNodes: Int, outputDepth: Int)

  def main(args: Array[String]): Unit = {
    val data = new File(args.headOption.getOrElse("data/stocks.csv.gz"))
    val passes = args.lift(1).map(_.toInt).getOrElse(5)
    val only = args.lift(2)
    only.filterNot(Set("chains", "strategies", "equality", "windows")).foreach { part =>
      sys.error(s"unknown part $part: write chains, strategies, equality or windows to measure that part alone, or " +
        "nothing for all")
    }
    if (only.contains("equality") || only.contains("windows")) {
      println(s"best of $passes passes after a warm-up, one JVM (${System.getProperty("java.vm.name")} " +
        s"${System.getProperty("java.version")}, ${Runtime.getRuntime.availableProcessors} cores)")
      println(if (only.contains("equality")) equality(passes) else WindowGrowth.report(passes))
      return
    }
    val onlyChains = only.contains("chains")
    val (columns, rows) = new CsvSource(data).read()
    println(s"${rows.size} events from $data; best of $passes passes after a warm-up, one JVM " +
      s"(${System.getProperty("java.vm.name")} ${System.getProperty("java.version")}, ${Runtime.getRuntime.availableProcessors} cores)")

    val floor = measure("floor: read + one predicate", passes, rows.size) {
      val name = columns.indexOf("name")
      val isIntc = ExprInterpreter.compilePredicate(ExprParser.parse("name = 'INTC'"), _ => name, "name = 'INTC'")
      var hits = 0L
      var i = 0
      while (i < rows.size) {
        if (isIntc(new Event(i, rows(i)).values)) hits += 1
        i += 1
      }
      (hits, 0, 0)
    }
    def run(name: String, text: String, columns: IndexedSeq[String], rows: IndexedSeq[Array[Any]],
        options: EngineOptions): Result = {
      val compiled = LocalEngine.compile(text, columns, options)
      measure(name, passes, rows.size) {
        val n = compiled.run(rows.iterator).size.toLong
        (n, compiled.metrics.peakLiveNodes, compiled.metrics.maxOutputDepth)
      }
    }
    def query(file: String, options: EngineOptions = EngineOptions(), path: String = ""): Result =
      run(file.stripSuffix(".ceql") + path,
        new String(Files.readAllBytes(Paths.get("sql/stocks", file)),
          StandardCharsets.UTF_8), columns, rows, options)
    // A chain as planned (each partition on the path that costs it less), then on each path alone.
    def paths(name: String, on: (EngineOptions, String) => Result): ChainPaths = ChainPaths(name,
      on(EngineOptions(), ""), on(EngineOptions(chainsByCost = false), " (lazy chain)"),
      on(EngineOptions(lazyChains = false), " (registers)"))
    val chains = Seq("c_dearer", "c_dearer3", "c_conj").map(f => paths(f, (o, p) => query(s"$f.ceql", o, p)))
    // A condition between the first two events only (the lazy chain searched every pair again at each C),
    // and one across the chain too (it still does: the race moves to registers).
    val blowUps = Seq(("adjacent", "", 100), ("adjacent", "", 1000), ("across", " AND a.v < c.v", 1000)).map {
      case (name, more, w) =>
        val text = s"SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.v + 95 < b.v$more WITHIN $w [ts]"
        paths(s"${name}_w$w", (o, p) => run(s"${name}_w$w$p", text, UniformStream.Columns, UniformStream.rows, o))
    }
    if (onlyChains) {
      println(chainReport(floor, chains, blowUps))
      return
    }
    // The selection strategies on CORE's sequences, each against ALL on the same pattern.
    val strategies = for (file <- Seq("s3", "s6", "s3_none"); s <- Seq("ALL", "NEXT", "LAST", "MAX")) yield {
      val text = new String(Files.readAllBytes(Paths.get("sql/stocks", s"$file.ceql")), StandardCharsets.UTF_8)
      require(text.contains("SELECT *"), s"$file.ceql should select *")
      file -> run(s"$file $s", text.replace("SELECT *", s"SELECT $s *"), columns, rows, EngineOptions())
    }
    val strategyReport = EngineBenchmark.table(
      floor, "Selection strategies on CORE's sequences (S3, S6, S3'), each against ALL",
      strategies.map(_._2), "peak tECS nodes | max output depth") + "\n### Strategies over ALL (same run)\n\n" +
      strategies.grouped(4).map { group =>
        val all = group.head._2
        s"- ${group.head._1}: " + group.tail.map { case (_, r) =>
          f"${r.name.split(' ').last} ${r.eventsPerSecond / all.eventsPerSecond}%.2f (CPU ${r.eventsPerCpuSecond / all.eventsPerCpuSecond}%.2f)"
        }.mkString(", ") + " (goal >= 1)\n"
      }.mkString + rankedIteration(columns, rows, passes)
    if (only.contains("strategies")) {
      println(strategyReport)
      return
    }
    val withOutput = Seq(3, 6, 9, 12, 24).map(n => query(s"s$n.ceql"))
    val noOutput = Seq(3, 6, 9, 12, 24).map(n => query(s"s${n}_none.ceql"))
    val windows = noOutput.head +: Seq(2, 3, 4).map(k => query(s"s3_none_x$k.ceql"))
    val dearer = query("c_dearer.ceql") +: Seq(2, 3, 4).map(k => query(s"c_dearer_x$k.ceql"))
    val others = Seq("c_rising", "c_burst", "c_dearer_plain").map(f => query(s"$f.ceql"))

    val report = new StringBuilder
    def table(title: String, results: Seq[Result], counts: String = "peak tECS nodes | max output depth"): Unit =
      report ++= EngineBenchmark.table(floor, title, results, counts)
    report ++= f"Floor (read each event, evaluate `name = 'INTC'`): ${floor.eventsPerSecond}%.0f events/s\n"
    table("Sequences with output (S3..S24, window T = 10 s)", withOutput)
    table("Sequences without output (S3'..S24')", noOutput)
    table("S3' with windows T, 2T, 3T, 4T", windows)
    table("Conditions relating events: c_dearer with windows T, 2T, 3T, 4T", dearer)
    table(
      "Conditions relating events: Kleene with prev and count, a contiguous burst's sum, and c_dearer without its " +
        "conditions", others)
    report ++= chainReport(floor, chains, blowUps)
    report ++= "\n### Ratios (same run)\n\n"
    report ++= f"- c_dearer at 4T over T: ${dearer(3).eventsPerSecond / dearer(0).eventsPerSecond}%.3f; c_dearer over " +
      f"the same pattern without its conditions (c_dearer_plain): ${dearer(0).eventsPerSecond / others(
          2).eventsPerSecond}%.2f\n"
    report ++= f"- throughput at 4T over T (S3'): ${windows(3).eventsPerSecond / windows(0).eventsPerSecond}%.3f (goal >= 0.8)\n"
    report ++= f"- length 24 over length 3 (no output): ${noOutput(4).eventsPerSecond / noOutput(0).eventsPerSecond}%.3f\n"
    report ++= f"- S3' over the floor: ${noOutput(0).eventsPerSecond / floor.eventsPerSecond}%.3f; S3 over the floor: ${withOutput(
        0).eventsPerSecond / floor.eventsPerSecond}%.3f\n"
    report ++= strategyReport
    report ++= WindowGrowth.report(passes)
    report ++= equality(passes)
    println(report)
    val out = Paths.get("bench/results/engine.md")
    Files.createDirectories(out.getParent)
    Files.write(out,
      (s"# Engine benchmark\n\nCommand: `make bench-engine` (data: $data, $passes passes)\n" + report).getBytes(
        StandardCharsets.UTF_8))
    println(s"written to $out")
  }

  /**
   * The selection strategies over an iteration whose conditions relate its events, on the first 10,000 and 20,000
   * events of the trace and on all of it (ALL, whose output grows with the stream, on the prefixes only): a strategy
   * keeps a configuration past the window while it may still outrank another, and dominance drops the ones that no
   * longer can, so that the work per event and the time of 20,000 events over 10,000 stay flat (goal <= 2.5).
   */
  private def rankedIteration(columns: IndexedSeq[String], rows: IndexedSeq[Array[Any]], passes: Int): String = {
    val pattern = "SELL AS s ; (BUY AS b)+ ; SELL AS e FILTER b.price > prev(b.price) AND count(b) >= 3 " +
      "PARTITION BY name WITHIN 1000 [stock_time]"
    val sizes = Seq(10000, 20000, rows.size)
    val measured = for (strategy <- Seq("ALL", "NEXT", "LAST", "MAX"); n <- sizes if strategy != "ALL" || n < rows.size)
      yield {
        val compiled = LocalEngine.compile(s"SELECT $strategy * FROM S WHERE $pattern", columns, EngineOptions())
        val prefix = rows.take(n)
        var work = 0L
        val r = measure(s"$strategy, $n events", passes, n) {
          val matches = compiled.run(prefix.iterator).size.toLong
          work = compiled.metrics.work.update
          (matches, compiled.metrics.peakActiveStates, 0)
        }
        (strategy, n, r, work.toDouble / n)
      }
    s"\n### Selection strategies over an iteration with conditions relating its events\n\n`SELECT <strategy> * FROM S " +
      s"WHERE $pattern`, on the first 10,000 and 20,000 events and the whole trace.\n\n" +
      "| strategy | events | matches | seconds | update steps per event | peak configurations |\n" +
      "|---|---:|---:|---:|---:|---:|\n" +
      measured.map { case (strategy, n, r, perEvent) =>
        f"| $strategy | $n | ${r.matches} | ${n / r.eventsPerSecond}%.3f | $perEvent%.1f | ${r.peakNodes} |\n"
      }.mkString + "\n" + measured.groupBy(_._1).toSeq.sortBy(s => Seq("ALL", "NEXT", "LAST", "MAX").indexOf(s._1))
        .map { case (strategy, m) =>
          val Seq(ten, twenty) = m.take(2).map(x => x._2 / x._3.eventsPerSecond)
          f"- $strategy: 20,000 events over 10,000 in time ${twenty / ten}%.2f (goal <= 2.5)\n"
        }.mkString
  }

  /** A chain's throughput as planned and on each of its paths alone. */
  private final case class ChainPaths(name: String, chosen: Result, lazyChain: Result, registers: Result)

  /** A table of results, each against `floor`; `counts` names the last two columns. */
  private def table(floor: Result, title: String, results: Seq[Result], counts: String): String =
    s"\n### $title\n\n| workload | matches | events/s | over floor | events/CPU s | over floor (CPU) | $counts |\n" +
      "|---|---:|---:|---:|---:|---:|---:|---:|\n" +
      results.map { r =>
        f"| ${r.name} | ${r.matches}%d | ${r.eventsPerSecond}%.0f | ${r.eventsPerSecond / floor.eventsPerSecond}%.3f | " +
          f"${r.eventsPerCpuSecond}%.0f | ${r.eventsPerCpuSecond / floor.eventsPerCpuSecond}%.3f | " +
          f"${r.peakNodes}%d | ${r.outputDepth}%d |\n"
      }.mkString

  /** The chains' tables, and per chain the throughput as planned over each path alone (the lazy chain: before). */
  private def chainReport(floor: Result, chains: Seq[ChainPaths], blowUps: Seq[ChainPaths]): String = {
    val all = chains ++ blowUps
    def each(c: Seq[ChainPaths]) = c.flatMap(p => Seq(p.chosen, p.lazyChain, p.registers))
    table(
      floor,
      "Conditions relating events: chains as planned, on the lazy chain alone and on registers alone",
      each(chains),
      "peak tECS nodes | max output depth"
    ) +
      table(
        floor,
        s"Chains the lazy chain alone once blew up on: `A AS a ; B AS b ; C AS c FILTER a.v + 95 < b.v` (adjacent), with `AND a.v < c.v` " +
          s"(across), on ${UniformStream.Events} uniform events of A, B, C, D (v in [0, 100)), windows of 100 and 1000 events",
        each(blowUps),
        "peak tECS nodes | max output depth"
      ) +
      "\n### Chains: as planned over each path alone (same run)\n\n" +
      all.map { p =>
        f"- ${p.name}: over the lazy chain alone ${p.chosen.eventsPerSecond / p.lazyChain.eventsPerSecond}%.2f, over " +
          f"registers alone ${p.chosen.eventsPerSecond / p.registers.eventsPerSecond}%.2f (lazy chain over registers " +
          f"${p.lazyChain.eventsPerSecond / p.registers.eventsPerSecond}%.2f)\n"
      }.mkString
  }

  /** The blow-up cases' stream: uniform types A, B, C, D, a value in [0, 100), ts the position (a fixed seed). */
  private[bench] object UniformStream {
    val Events = 20000
    val Columns: IndexedSeq[String] = IndexedSeq("event_type", "v", "ts")
    lazy val rows: IndexedSeq[Array[Any]] = {
      val random = new java.util.Random(7)
      IndexedSeq.tabulate(Events)(i =>
        Array[Any](Seq("A", "B", "C", "D")(random.nextInt(4)), Long.box(random.nextInt(100)),
          Long.box(i)))
    }
  }

  private val AccountEvents = 10000000
  private val TMs = 60000L

  /**
   * Equality correlation by PCEA on the synthetic account stream: the update time against the
   * window, where many keys make more transitions fire as the window grows (100,000 accounts) and where nearly every
   * transfer fires them already at T (10,000 accounts), and the chains of length 2 to 8 with output. Their floor is
   * what a hash join does per event: one probe and one insertion of the event's account in a hash table (the window
   * left aside), which is what a run that cannot complete inside the window may cost at most. Returns the section of
   * the report.
   */
  private def equality(passes: Int): String = {
    def run(name: String, rows: IndexedSeq[Array[Any]], text: String): Result = {
      val compiled = LocalEngine.compile(text, AccountStream.Columns)
      measure(name, passes, rows.size) {
        val n = compiled.run(rows.iterator).size.toLong
        (n, compiled.metrics.peakLiveNodes, compiled.metrics.peakActiveStates)
      }
    }
    val section = new StringBuilder
    val ratios = new StringBuilder
    for (accounts <- Seq(100000, 10000)) {
      val rows = AccountStream.rows(AccountEvents, accounts)
      val floor = measure(s"floor: a hash probe per event ($accounts accounts)", passes, rows.size) {
        val acct = AccountStream.Columns.indexOf("acct")
        val latest = new java.util.HashMap[AnyRef, AnyRef]
        var hits = 0L
        var i = 0
        while (i < rows.size) {
          if (latest.put(rows(i)(acct).asInstanceOf[AnyRef], rows(i)) != null) hits += 1
          i += 1
        }
        (hits, 0, 0)
      }
      val windows = Seq(1, 2, 4, 8).map(k =>
        run(s"chain4_none_x$k ($accounts accounts)", rows, AccountStream.chain(4, k * TMs, AccountStream.Closing)))
      val built = Seq(1, 8).map(k =>
        run(s"chain4_stranger_x$k ($accounts accounts)", rows, AccountStream.chain(4, k * TMs, AccountStream.Stranger)))
      section ++= f"\nFloor on $accounts accounts (a hash probe and insertion per event): ${floor.eventsPerSecond}%.0f events/s\n"
      section ++= table(
        floor,
        s"Equality correlation by PCEA: chain4 without output, windows T, 2T, 4T, 8T " +
          s"($AccountEvents events, $accounts accounts, T = $TMs ms)",
        windows,
        PceaCounts
      )
      section ++= table(
        floor,
        s"Equality correlation by PCEA: chain4 ending in a withdrawal by id, windows T and 8T " +
          s"(runs are built at every withdrawal, and nothing matches after the first 1 % of the stream)",
        built,
        PceaCounts
      )
      if (accounts == 100000)
        section ++= table(
          floor,
          "Equality correlation by PCEA: chains of length 2 to 8 with output, window T",
          Seq(2, 3, 4, 6, 8).map(n => run(s"chain$n", rows, AccountStream.chain(n, TMs))),
          PceaCounts
        )
      ratios ++= f"- chain4 without output, $accounts accounts, throughput at 8T over T: " +
        f"${windows.last.eventsPerSecond / windows.head.eventsPerSecond}%.3f (CPU time: " +
        f"${windows.last.eventsPerCpuSecond / windows.head.eventsPerCpuSecond}%.3f; goal >= 0.8); at 8T over the hash " +
        f"probe floor: ${windows.last.eventsPerSecond / floor.eventsPerSecond}%.3f (CPU time: " +
        f"${windows.last.eventsPerCpuSecond / floor.eventsPerCpuSecond}%.3f)\n" +
        f"- chain4 ending in a withdrawal by id, $accounts accounts, throughput at 8T over T: " +
        f"${built.last.eventsPerSecond / built.head.eventsPerSecond}%.3f (CPU time: " +
        f"${built.last.eventsPerCpuSecond / built.head.eventsPerCpuSecond}%.3f)\n"
    }
    section ++= "\n### Ratios of the PCEA workloads (same run)\n\n" ++= ratios
    section.toString
  }

  private val PceaCounts = "peak run nodes kept | peak index entries"

  private val WarmUpPasses = 3

  private[bench] def measure(name: String, passes: Int, events: Int)(pass: => (Long, Int, Int)): Result = {
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    // Warm-up: the JIT and the lazily built automaton. Three passes, since a path that first runs late in a pass (a
    // race's challenger) makes the JIT recompile what it compiled before: after one pass, c_dearer as planned measured
    // 0.7 of the lazy chain alone, after three 0.95, as in a long run.
    for (_ <- 1 to WarmUpPasses) pass
    var (best, bestCpu) = (Double.MaxValue, Double.MaxValue)
    var last = (0L, 0, 0)
    for (_ <- 1 to passes) {
      val (t0, c0) = (System.nanoTime(), cpu.getCurrentThreadCpuTime)
      last = pass
      best = math.min(best, (System.nanoTime() - t0) / 1e9)
      bestCpu = math.min(bestCpu, (cpu.getCurrentThreadCpuTime - c0) / 1e9)
    }
    val r = Result(name, last._1, events / best, events / bestCpu, last._2, last._3)
    println(
      f"$name%-40s ${r.eventsPerSecond}%12.0f events/s ${r.eventsPerCpuSecond}%12.0f events/CPU s  ${r.matches}%10d matches")
    r
  }

}
