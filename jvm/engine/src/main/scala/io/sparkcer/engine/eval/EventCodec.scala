package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

/** How a caller writes its events into a saved evaluator state and reads them back (Spark: UnsafeRow bytes). */
trait EventCodec[E] {
  def write(event: E, out: DataOutput): Unit
  def read(in: DataInput): E
}
