package io.sparkcer.engine.rowpattern

/** The rows of a partition that its matching still holds, by position in the partition (from 0). */
trait PartitionRows[R] {
  /** Whether the row at `position` is held (read, and not dropped). */
  def holds(position: Long): Boolean
  def apply(position: Long): R
}
