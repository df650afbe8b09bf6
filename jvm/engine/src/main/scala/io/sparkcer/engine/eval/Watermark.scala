package io.sparkcer.engine.eval

/**
 * What a watermark lets go: a live stream's promise that no event with a window key at or below it will come any
 * more. Everything the next event's own threshold would drop goes at once: expired partial matches and events,
 * and whole partitions whose events have all left the window where that is allowed. Column windows only.
 *
 * @param forgetsIdle [[io.sparkcer.engine.plan.CompiledPattern.forgetsIdlePartitions]]
 */
final class Watermark[E <: AnyRef](partitions: Partitions[E], window: SlidingWindow, forgetsIdle: Boolean) {

  def advanceTo(key: Long): Unit = if (window.onColumn) {
    val threshold = window.threshold(key)
    if (forgetsIdle) partitions.retain(_.lastKey > threshold)
    partitions.held.foreach { p => p.events.expire(threshold); p.run.expire(threshold) }
  }

  /**
   * The watermark at which [[advanceTo]] can drop everything that is left, or None when nothing more expires (no
   * column window, or only the priority order that NEXT, LAST and MAX keep).
   */
  def expiresAt: Option[Long] =
    if (!window.onColumn) None
    else partitions.held.filter(p => forgetsIdle || p.events.size > 0).map(p => window.expiry(p.lastKey)).maxOption
}
