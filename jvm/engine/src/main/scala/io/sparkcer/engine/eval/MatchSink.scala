package io.sparkcer.engine.eval

/** Receives one complex event: its start position and its marked (position, label) pairs, latest first. */
trait MatchSink {
  /** Returns false to stop the enumeration (ANY and LIMIT need only the first few). */
  def accept(start: Long, size: Int, positions: Array[Long], labels: Array[Int]): Boolean
}
