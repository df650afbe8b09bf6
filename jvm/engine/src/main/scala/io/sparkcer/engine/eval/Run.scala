package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

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
  /** Drops the partial matches that started at or below `threshold`, as the next event's own threshold would. */
  def expire(threshold: Long): Unit
  /** Writes what the run needs to go on from the last event read in another process. */
  def save(out: DataOutput): Unit
  /** Makes this fresh run the one [[save]] wrote. */
  def load(in: DataInput): Unit
}
