package io.sparkcer.engine.eval

import io.sparkcer.engine.tecs.{Enumerator, MatchSink, Tecs}

/** The evaluation state of one partition: its partial matches, updated event by event. */
trait Run {
  def tecs: Tecs
  /** Reads the event at `position`: its interned symbol, that symbol's guard bits, its window key, and key - window. */
  def advance(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long): Unit
  /** Enumerates the matches completed by the last event read; returns how many were accepted. */
  def emit(position: Long, threshold: Long, enumerator: Enumerator, sink: MatchSink): Int
  /** Active deterministic states (a metric). */
  def activeStates: Int
}
