package io.sparkcer.engine.rowpattern

import scala.collection.mutable

import io.sparkcer.engine.ceql.CeqlException

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
 */
object ProgramCompiler {
  /** The most instructions a program may have: PERMUTE and bounded quantifiers copy code. */
  val MaxInstructions = 100000

  /**
   * @param labelOf the label of a pattern variable (its canonical name's index in `labels`)
   * @param query   the text the pattern's positions refer to, for errors
   */
  def compile(pattern: RowPattern, labels: IndexedSeq[String], labelOf: String => Int, query: String): Program =
    new ProgramCompiler(labels, labelOf, query).program(pattern)
}

private final class ProgramCompiler(labels: IndexedSeq[String], labelOf: String => Int, query: String) {
  import Program.{Done, ExclusionEnd, ExclusionStart, Jump, MatchLabel, Split}
  import RowPattern.{Alternation, Concat, Empty, Exclusion, Permute, Quantified, Variable}

  private val opcodes = mutable.ArrayBuffer.empty[Int]
  private val as = mutable.ArrayBuffer.empty[Int]
  private val bs = mutable.ArrayBuffer.empty[Int]
  private var at: RowPattern = _ // the pattern being compiled, where a size error points

  def program(pattern: RowPattern): Program = {
    emit(pattern)
    add(Done)
    new Program(opcodes.toArray, as.toArray, bs.toArray, labels)
  }

  private def add(op: Int, a: Int = -1, b: Int = -1): Int = {
    if (opcodes.length >= ProgramCompiler.MaxInstructions)
      throw new CeqlException(s"expected a pattern of at most ${ProgramCompiler.MaxInstructions} instructions once " +
        "its PERMUTE orders and bounded repetitions are written out, found more: use fewer PERMUTE items or smaller " +
        "repetition counts", at.pos, query)
    opcodes += op; as += a; bs += b
    opcodes.length - 1
  }

  private def patch(k: Int, a: Int = -2, b: Int = -2): Unit = {
    if (a != -2) as(k) = a
    if (b != -2) bs(k) = b
  }

  private def here: Int = opcodes.length

  private def emit(p: RowPattern): Unit = {
    at = p
    p match {
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
