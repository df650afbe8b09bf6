package io.sparkcer.engine

import java.io.File

import io.sparkcer.engine.runner.CsvSource

/** The repository's stock trace, `data/stocks.csv.gz`, for the tests that run on real data. */
object StockTrace {
  /** The repository's root: the nearest folder up from the tests' own that holds the trace. */
  lazy val root: File = Iterator.iterate(new File(".").getAbsoluteFile)(_.getParentFile).takeWhile(_ != null)
    .find(d => new File(d, "data/stocks.csv.gz").isFile)
    .getOrElse(throw new IllegalStateException("no data/stocks.csv.gz in a folder above the tests' own"))

  /** The trace's columns and its first `limit` events. */
  def read(limit: Int = Int.MaxValue): (IndexedSeq[String], IndexedSeq[Array[Any]]) =
    new CsvSource(new File(root, "data/stocks.csv.gz")).read(limit)
}
