package io.sparkcer.bench

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}
import io.sparkcer.engine.{EngineOptions, LocalEngine}
import io.sparkcer.engine.runner.CsvSource

/** Throwaway: CORE's s3, s3_none, s6 and s3_none_x4 only, best of N passes. */
object Quick {
  def main(args: Array[String]): Unit = {
    val (columns, rows) = new CsvSource(new File(args(0))).read()
    val passes = args(1).toInt
    for (rep <- 1 to 1; f <- Seq("s3", "s3_none", "s6", "s3_none_x4", "s12", "c_dearer", "c_rising", "c_dearer_plain", "c_burst")) {
      val text = new String(Files.readAllBytes(Paths.get("sql/stocks", s"$f.ceql")), StandardCharsets.UTF_8)
      val compiled = LocalEngine.compile(text, columns, EngineOptions())
      compiled.run(rows.iterator).size
      var best = Double.MaxValue
      var n = 0
      for (_ <- 1 to passes) {
        val t0 = System.nanoTime(); n = compiled.run(rows.iterator).size
        best = math.min(best, (System.nanoTime() - t0) / 1e9)
      }
      println(f"QUICK $f%-12s ${rows.size / best}%12.0f ev/s $n%8d matches peak ${compiled.metrics.peakLiveNodes}")
    }
  }
}
