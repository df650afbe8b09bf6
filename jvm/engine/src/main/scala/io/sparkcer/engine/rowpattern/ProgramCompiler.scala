package io.sparkcer.engine.rowpattern

import scala.collection.mutable

import io.sparkcer.engine.syntax.PatternException

/**
 * Compiles a row pattern into a [[Program]], Thompson's construction with the order of preference kept in each
 * split (its first target preferred):
 *
 *  - `a b`: a's code, then b's;
 *  - `a | b | c`: split(a, split(b, c)), each alternative jumping past the others when done;
 *  - `PERMUTE(a, b, c)`: the alternation of every order of the items, in lexicographic order (a b c | a c b | ...);
 *  - `a{n,m}`: n copies of a, then m - n optional ones, each a split between one more copy and the end (the copy
 *    first when greedy, the end first when reluctant); `a{n,}`: n copies, then a split between repeating the last
 *    copy and the end; `a*`: a split between a copy and the end, the copy, then that split again (Trino's layout,
 *    which decides what an iteration that reads no row does: see the matcher);
 *  - `{- a -}`, `^`, `$`: their instructions around or in place of code.
 *
 * A loop whose body can match no row does not spin: the matcher drops a thread that comes back to an instruction it
 * has visited at the same row with the same history. So the first iteration of a loop that reads no row ends the
 * repetition, and a later one is not taken (as in Trino).
 *
 * A thread is an instruction and the labels read so far, so an order of PERMUTE's items is a place in the code: the
 * n! orders are written out, and the size of the code is checked before it is written ([[size]]).
 */
object ProgramCompiler {
  import RowPattern.{Alternation, Concat, Empty, Exclusion, PartitionEnd, PartitionStart, Permute, Quantified, Variable}

  /** The most instructions a program may have: PERMUTE and bounded quantifiers copy code. */
  val MaxInstructions = 100000

  /**
   * @param labelOf the label of a pattern variable (its canonical name's index in `labels`)
   * @param query   the text the pattern's positions refer to, for errors
   */
  def compile(pattern: RowPattern, labels: IndexedSeq[String], labelOf: String => Int, query: String): Program = {
    if (size(pattern) + 1 > MaxInstructions) tooLarge(pattern, query)
    compiled.incrementAndGet()
    new ProgramCompiler(labels, labelOf).program(pattern)
  }

  /** The programs compiled in this JVM: a query compiles its pattern once, at analysis (the tests count them). */
  def compilations: Long = compiled.get
  private val compiled = new java.util.concurrent.atomic.AtomicLong

  /** Counts saturate here: PERMUTE's n! orders overflow any integer. */
  private val Saturated = 1L << 60

  private def plus(a: Long, b: Long): Long = math.min(a + b, Saturated)
  private def times(a: Long, b: Long): Long = if (a == 0 || b == 0) 0 else if (a > Saturated / b) Saturated else a * b
  private def orders(items: Int): Long = (2 to items).foldLeft(1L)((n, k) => times(n, k))

  /** The instructions the code of `p` takes (without the final Done), as the compiler lays it out; saturating. */
  def size(p: RowPattern): Long = p match {
    case Variable(_) | PartitionStart(_) | PartitionEnd(_) => 1
    case Empty(_) => 0
    case Concat(parts, _) => parts.map(size).foldLeft(0L)(plus)
    case Alternation(options, _) => plus(options.map(size).foldLeft(0L)(plus), 2L * (options.length - 1))
    case Permute(items, _) =>
      // every order is the items' code once, between a split and a jump (but the last order)
      val n = orders(items.length)
      plus(times(n, items.map(size).foldLeft(0L)(plus)), times(n - 1, 2))
    case Exclusion(body, _) => plus(size(body), 2)
    case Quantified(body, min, Some(max), _, _) => plus(times(min, size(body)), times(max - min, plus(size(body), 1)))
    case Quantified(body, min, None, _, _) => plus(times(math.max(min, 1), size(body)), if (min == 0) 2 else 1)
  }

  /**
   * Refuses a pattern whose code would be too large, before any of it is written: it points at the innermost PERMUTE
   * or repetition that is too large on its own (the last in [[RowPattern.parts]]' order), else at the whole pattern.
   */
  private def tooLarge(pattern: RowPattern, query: String): Nothing = {
    val culprit = RowPattern.parts(pattern).filter(p => size(p) + 1 > MaxInstructions).lastOption.getOrElse(pattern)
    val count = f"${size(culprit)}%,d" + (if (size(culprit) == Saturated) " or more" else "")
    val (what, advice) = culprit match {
      case Permute(items, _) =>
        val fit =
          (1 to items.length).takeWhile(k => size(Permute(items.take(k), culprit.pos)) + 1 <= MaxInstructions).last
        (f"PERMUTE of ${items.length} items, written out as every order of them (${orders(items.length)}%,d orders" +
            (if (orders(items.length) == Saturated) " or more" else "") + s"), comes to $count",
          s"use fewer PERMUTE items (up to $fit of these fit), or an alternation or repetition of the items if their " +
            "order need not be a permutation, e.g. (A | B | C){3}")
      case Quantified(_, min, max, _, _) =>
        (s"the repetition {$min,${max.fold("")(_.toString)}}, written out as copies of its body, comes to $count",
          "use smaller repetition counts, or an unbounded quantifier (+ or *) where the count need not be exact")
      case _ => (s"the pattern comes to $count", "use fewer PERMUTE items or smaller repetition counts")
    }
    throw new PatternException(
      s"expected a pattern of at most $MaxInstructions instructions once its PERMUTE orders and " +
        s"bounded repetitions are written out; $what: $advice",
      culprit.pos,
      query
    )
  }
}

private final class ProgramCompiler(labels: IndexedSeq[String], labelOf: String => Int) {
  import Program.{Done, ExclusionEnd, ExclusionStart, Jump, MatchLabel, Split}
  import RowPattern.{Alternation, Concat, Empty, Exclusion, Permute, Quantified, Variable}

  private val opcodes = mutable.ArrayBuffer.empty[Int]
  private val as = mutable.ArrayBuffer.empty[Int]
  private val bs = mutable.ArrayBuffer.empty[Int]

  def program(pattern: RowPattern): Program = {
    emit(pattern)
    add(Done)
    new Program(opcodes.toArray, as.toArray, bs.toArray, labels)
  }

  private def add(op: Int, a: Int = -1, b: Int = -1): Int = {
    opcodes += op; as += a; bs += b
    opcodes.length - 1
  }

  private def patch(k: Int, a: Int = -2, b: Int = -2): Unit = {
    if (a != -2) as(k) = a
    if (b != -2) bs(k) = b
  }

  private def here: Int = opcodes.length

  private def emit(p: RowPattern): Unit = p match {
    case Variable(name) => add(MatchLabel, labelOf(RowPatternAnalysis.canonical(name)))
    case Concat(parts, _) => parts.foreach(emit)
    case Alternation(options, _) => alternatives(options.map(o => () => emit(o)))
    case Permute(items, _) =>
      alternatives(items.indices.permutations.toSeq.map(order => () => order.foreach(i => emit(items(i)))))
    case Exclusion(body, _) => add(ExclusionStart); emit(body); add(ExclusionEnd)
    case Empty(_) =>
    case RowPattern.PartitionStart(_) => add(Program.PartitionStart)
    case RowPattern.PartitionEnd(_) => add(Program.PartitionEnd)
    case Quantified(body, min, max, greedy, _) => quantified(body, min, max, greedy)
  }

  /** split(o1, split(o2, ... on)), each option but the last jumping to the end. */
  private def alternatives(options: Seq[() => Unit]): Unit = {
    val jumps = mutable.ArrayBuffer.empty[Int]
    for ((option, i) <- options.zipWithIndex) {
      if (i < options.length - 1) {
        val split = add(Split, here + 1)
        option()
        jumps += add(Jump)
        patch(split, b = here)
      } else option()
    }
    jumps.foreach(j => patch(j, a = here))
  }

  private def quantified(body: RowPattern, min: Int, max: Option[Int], greedy: Boolean): Unit = max match {
    case Some(m) =>
      for (_ <- 0 until min) emit(body)
      val splits = for (_ <- min until m) yield {
        val split = add(Split)
        if (greedy) patch(split, a = here) else patch(split, b = here)
        emit(body)
        split
      }
      splits.foreach(s => if (greedy) patch(s, b = here) else patch(s, a = here))
    case None =>
      // min = 0: split(body, end); body; split(body, end). Otherwise min copies, the last one repeated by a split
      // back to its start.
      val entry = if (min == 0) add(Split) else -1
      var loop = here
      for (_ <- 0 until math.max(min, 1)) { loop = here; emit(body) }
      val split = add(Split)
      if (greedy) patch(split, a = loop, b = here) else patch(split, a = here, b = loop)
      if (entry >= 0) { if (greedy) patch(entry, a = loop, b = here) else patch(entry, a = here, b = loop) }
  }
}
