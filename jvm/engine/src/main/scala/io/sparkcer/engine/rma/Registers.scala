package io.sparkcer.engine.rma

import java.io.{DataInput, DataOutput}

/**
 * The registers of a run (RMA's γ): immutable, compared and hashed by content, so that runs in the same automaton
 * state with the same registers are one run (their partial matches share a union-list: their futures are alike).
 * Events are held by their positions in the partition's substream; the window keeps those events.
 *
 * @param singles      position per single register, [[Registers.Empty]] or [[Registers.Unsatisfiable]]
 * @param lists        per list register, its positions, latest first (null for empty)
 * @param accumulators per accumulator, the aggregate's state (null before the first event)
 */
final class Registers(val singles: Array[Long], val lists: Array[PositionList], val accumulators: Array[AnyRef]) {
  override val hashCode: Int =
    java.util.Arrays.hashCode(singles) * 31 * 31 + java.util.Arrays.hashCode(lists.asInstanceOf[Array[AnyRef]]) * 31 +
      java.util.Arrays.hashCode(accumulators)

  override def equals(o: Any): Boolean = o match {
    case r: Registers => (r eq this) || (r.hashCode == hashCode && java.util.Arrays.equals(singles, r.singles) &&
        java.util.Arrays.equals(lists.asInstanceOf[Array[AnyRef]], r.lists.asInstanceOf[Array[AnyRef]]) &&
        java.util.Arrays.equals(accumulators, r.accumulators))
    case _ => false
  }

  /** The registers after `actions` read the event at `position`, up to `phase`, with `updates` for its values. */
  def after(actions: Actions, position: Long, updates: Registers.Updates, phase: Phase): Registers =
    if (phase == Phase.Before || actions.isEmpty || (phase == Phase.Reset && actions.reset.isEmpty)) this
    else {
      val s = singles.clone()
      val l = lists.clone()
      val a = accumulators.clone()
      Registers.clear(actions.reset, s, l, a)
      if (phase != Phase.Reset) {
        var i = 0
        while (i < actions.writes.length) { s(actions.writes(i)) = position; i += 1 }
        i = 0
        while (i < actions.appends.length) {
          val r = actions.appends(i); l(r) = new PositionList(position, l(r)); i += 1
        }
        i = 0
        while (i < actions.accumulates.length) {
          val r = actions.accumulates(i); a(r) = updates.accumulate(r, a(r)); i += 1
        }
        i = 0
        while (i < actions.challenges.length) {
          val h = actions.challenges(i)
          s(h.register) = updates.harder(h, s(h.register))
          i += 1
        }
        i = 0
        while (i < actions.easiest.length) {
          val e = actions.easiest(i)
          s(e.register) = updates.easier(e, s(e.register))
          i += 1
        }
      }
      if (phase == Phase.All) Registers.clear(actions.drop, s, l, a)
      new Registers(s, l, a)
    }

  /** Writes the registers; accumulators go through `write`. */
  def save(out: DataOutput, write: (Int, AnyRef, DataOutput) => Unit): Unit = {
    singles.foreach(out.writeLong)
    lists.foreach { l =>
      val positions = if (l == null) Nil else l.toList
      out.writeInt(positions.length)
      positions.foreach(out.writeLong)
    }
    accumulators.zipWithIndex.foreach { case (acc, i) =>
      out.writeBoolean(acc != null)
      if (acc != null) write(i, acc, out)
    }
  }
}

object Registers {
  /** A single register with no event yet. */
  val Empty: Long = -1L
  /** A [[Hardest]] register whose events no value satisfies together: the condition fails. */
  val Unsatisfiable: Long = -2L

  /** What an event does to the registers that depend on its values, which the caller's reader evaluates. */
  trait Updates {
    /** The state of accumulator `i` after adding the event to `state`. */
    def accumulate(i: Int, state: AnyRef): AnyRef
    /** What hardest-event register `h` holds after the event challenges `held` (a position, or one of the above). */
    def harder(h: Hardest, held: Long): Long
    /** What register `e` holds after the event challenges `held` for the easier of the two ([[ExistentialTakes]]). */
    def easier(e: Hardest, held: Long): Long
  }

  private def clear(set: RegisterSet, singles: Array[Long], lists: Array[PositionList], accumulators: Array[AnyRef])
      : Unit =
    if (!set.isEmpty) {
      var i = 0
      while (i < set.singleArray.length) { singles(set.singleArray(i)) = Empty; i += 1 }
      i = 0
      while (i < set.listArray.length) { lists(set.listArray(i)) = null; i += 1 }
      i = 0
      while (i < set.accumulatorArray.length) { accumulators(set.accumulatorArray(i)) = null; i += 1 }
    }

  def empty(program: RegisterProgram): Registers =
    new Registers(Array.fill(program.singles)(Empty), new Array[PositionList](program.lists),
      new Array[AnyRef](program.accumulators.length))

  def load(program: RegisterProgram, in: DataInput, read: (Int, DataInput) => AnyRef): Registers = {
    val singles = Array.fill(program.singles)(in.readLong())
    val lists = Array.fill(program.lists) {
      val positions = List.fill(in.readInt())(in.readLong())
      positions.foldRight(null: PositionList)((p, rest) => new PositionList(p, rest))
    }
    val accumulators = Array.tabulate(program.accumulators.length)(i => if (in.readBoolean()) read(i, in) else null)
    new Registers(singles, lists, accumulators)
  }
}

/** An immutable list of positions, latest first, sharing its tail with the runs it was extended from. */
final class PositionList(val head: Long, val tail: PositionList) {
  val length: Int = if (tail == null) 1 else tail.length + 1
  override val hashCode: Int = (if (tail == null) 17 else tail.hashCode) * 31 + java.lang.Long.hashCode(head)

  override def equals(o: Any): Boolean = o match {
    case other: PositionList =>
      var (a, b) = (this, other)
      while (a != null && b != null && (a eq b) == false) {
        if (a.head != b.head || a.hashCode != b.hashCode) return false
        a = a.tail; b = b.tail
      }
      a eq b
    case _ => false
  }

  def toList: List[Long] = {
    val out = List.newBuilder[Long]
    var l = this
    while (l != null) { out += l.head; l = l.tail }
    out.result()
  }
}
