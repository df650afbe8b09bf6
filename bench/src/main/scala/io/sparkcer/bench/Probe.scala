package io.sparkcer.bench

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}
import io.sparkcer.engine.{EngineOptions, LocalEngine}
import io.sparkcer.engine.runner.CsvSource

/** Throwaway: one query's metrics. */
object Probe {
  def main(args: Array[String]): Unit = {
    val (columns, rows) = new CsvSource(new File(args(0))).read()
    for (spec <- args.drop(1)) {
      val Array(f, path) = (spec + ":").split(":", 2).map(_.stripSuffix(":"))
      val options = path match { case "lazy" => EngineOptions(chainsByCost = false); case "reg" => EngineOptions(lazyChains = false); case _ => EngineOptions() }
      val text = new String(Files.readAllBytes(Paths.get("sql/stocks", s"$f.ceql")), StandardCharsets.UTF_8)
      val compiled = LocalEngine.compile(text, columns, options)
      val n = compiled.run(rows.iterator).size
      val m = compiled.metrics
      println(s"PROBE $spec rows $n peakNodes ${m.peakLiveNodes} peakActive ${m.peakActiveStates} depth ${m.maxOutputDepth} ${m.work.describe}")
    }
  }
}
