package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

/**
 * The layout of an evaluator's state as a live stream keeps it between micro-batches, possibly read back by
 * another process: per partition, the event that opened it, where its substream has got to, its events and its
 * run.
 */
object SavedState {
  /**
   * The layout version; a change makes old checkpoints fail loudly, not silently. 2: the registers of a query's runs
   * changed (a hardest event where a list was; takes an unselected variable no longer makes). 3: a chain's run
   * records the path its partition chose and the race in progress ([[io.sparkcer.engine.chain.AdaptiveChainRun]]).
   * 4: a PCEA's run records the events it keeps unread, and its nodes their union rank and witnesses. 5: an OR of
   * chains runs on the lazy chain too (it ran on registers alone), one chain's buffers per alternative
   * ([[io.sparkcer.engine.chain.Chains]]), and a NONE's; a partition's events end with those kept after the window
   * (NEXT and LAST with conditions). 6: a chain with a NONE relating its event only to earlier ones races the
   * registers too (it ran on the lazy chain alone), whose automaton waits in a state of its own in such a NONE's gap.
   */
  final val Format = 6

  def save[E <: AnyRef](partitions: Partitions[E], out: DataOutput, codec: EventCodec[E]): Unit = {
    out.writeInt(Format)
    out.writeInt(partitions.count)
    partitions.held.foreach { p =>
      codec.write(p.witness, out)
      out.writeLong(p.position)
      out.writeLong(p.lastKey)
      p.events.save(out, codec)
      p.run.save(out)
    }
  }

  /**
   * Reads a saved state's layout version, written first, and refuses any other than `format` with a message that says
   * what to do (CEQL's [[Format]], MATCH_RECOGNIZE's own): a state of another layout would be misread, silently.
   */
  def requireFormat(in: DataInput, format: Int): Unit = {
    val found = in.readInt()
    if (found != format) throw new IllegalStateException(s"saved state format $found, expected $format: the " +
      "checkpoint was written by another version of spark-cer; start the query from a new checkpoint location")
  }

  /** Replaces the partitions with those [[save]] wrote, for the same query. */
  def load[E <: AnyRef](partitions: Partitions[E], in: DataInput, codec: EventCodec[E]): Unit = {
    partitions.clear()
    requireFormat(in, Format)
    for (_ <- 0 until in.readInt()) {
      val p = partitions.restore(codec.read(in))
      p.position = in.readLong()
      p.lastKey = in.readLong()
      p.events.load(in, codec)
      p.run.load(in)
    }
  }
}
