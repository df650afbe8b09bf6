package io.sparkcer.engine.chain

/**
 * What a lazy chain over a sequence keeps across the events that end its matches, when each of its conditions
 * relates adjacent atoms ([[ChainRun]] then assembles matches backwards, atom by atom): per event of an inner atom
 * j, the events of atom j - 1 it can follow in a match, each with the latest first event of the matches through it
 * (as CORE's tECS keeps a node's maximum start). They are found at the first event that ends a match through that
 * event and never searched for again: the lazy chain NFA's instances, kept rather than rebuilt at each event that
 * ends a match, and held factorized, one list per event rather than one instance per combination.
 */
private[chain] final class Predecessors(atoms: Int) {
  private val byAtom = Array.fill(atoms)(new java.util.HashMap[java.lang.Long, Predecessors.Entry]())

  /** The predecessors found for the event at `position` of atom j, or null if none were looked for. */
  def of(j: Int, position: Long): Predecessors.Entry = byAtom(j).get(position)

  def keep(j: Int, position: Long, entry: Predecessors.Entry): Unit = byAtom(j).put(position, entry)

  /** The events whose predecessors are kept (a metric). */
  def size: Int = byAtom.iterator.map(_.size).sum

  /**
   * Forgets atom j's events before `oldest`, the first it still buffers (they left the window). A sweep visits every
   * entry of the atom, so it runs only once they outnumber twice the atom's buffered events: constant work per
   * event, amortized.
   */
  def forgetBefore(j: Int, oldest: Long, buffered: Int): Unit =
    if (byAtom(j).size > 2 * buffered + 16) byAtom(j).keySet.removeIf(_ < oldest)
}

private[chain] object Predecessors {
  /**
   * The predecessors of one event, with the latest first event of the matches through each; the latest of those is
   * [[latestStart]], Long.MinValue while there is none (the event can end no partial match).
   */
  final class Entry {
    var positions = new Array[Long](4)
    var starts = new Array[Long](4)
    var size = 0
    var latestStart = Long.MinValue

    def add(position: Long, start: Long): Unit = {
      if (size == positions.length) {
        positions = java.util.Arrays.copyOf(positions, size * 2)
        starts = java.util.Arrays.copyOf(starts, size * 2)
      }
      positions(size) = position
      starts(size) = start
      size += 1
      latestStart = math.max(latestStart, start)
    }
  }
}
