package io.sparkcer.engine.rowpattern

import java.util.concurrent.atomic.{AtomicLong, AtomicReferenceArray}

/**
 * A row pattern compiled for the [[Matcher]]: a program of instructions in the manner of Thompson's and Pike's
 * regular expression machines (and of Trino's row pattern matcher), whose threads the matcher runs in order of
 * preference. Instruction k is `opcodes(k)` with operands `a(k)` and `b(k)`:
 *
 *  - [[Program.MatchLabel]] a: read the current row as pattern variable a (its DEFINE condition must hold);
 *  - [[Program.Split]] a b: go on at a and at b, a preferred;
 *  - [[Program.Jump]] a: go on at a;
 *  - [[Program.PartitionStart]], [[Program.PartitionEnd]]: `^` and `$`, without reading a row;
 *  - [[Program.ExclusionStart]], [[Program.ExclusionEnd]]: the rows read in between are left out of ALL ROWS PER
 *    MATCH's output;
 *  - [[Program.Done]]: a match.
 *
 * @param labels the pattern variables, by label (MatchLabel's operand)
 */
final class Program(val opcodes: Array[Int], val a: Array[Int], val b: Array[Int], val labels: IndexedSeq[String])
    extends Serializable {
  import Program._

  def size: Int = opcodes.length

  /** Per instruction, whether a row read there is inside an exclusion `{- -}`, out of ALL ROWS PER MATCH's output. */
  def excluded: Array[Boolean] = {
    var depth = 0
    opcodes.map { op =>
      if (op == ExclusionStart) depth += 1
      if (op == ExclusionEnd) depth -= 1
      depth > 0
    }
  }

  /**
   * The instructions a thread at `pc` reaches without reading a row, in order of preference, each once: the rows it
   * may read next (MatchLabel; PartitionEnd but at the partition's end, where it is passed), and Done. `^` is passed
   * at the partition's first row only. Computed once per instruction and place (the matcher asks at every row), and
   * kept up to [[Program.ClosureCache]] instructions in all; past it, computed at each call.
   */
  def closure(pc: Int, atStart: Boolean, atEnd: Boolean): Array[Int] = {
    val place = (if (atStart) 1 else 0) | (if (atEnd) 2 else 0)
    val index = place * size + pc
    val known = closures.get(index)
    if (known != null) known
    else {
      val reached = reach(pc, atStart, atEnd)
      if (cached.addAndGet(reached.length) <= ClosureCache) closures.set(index, reached)
      reached
    }
  }

  // Filled as the matchers of a task ask, from any of its threads; the reference array publishes each closure whole.
  @transient private lazy val closures = new AtomicReferenceArray[Array[Int]](4 * size)
  @transient private lazy val cached = new AtomicLong

  /** The closure of `pc0`, depth first in order of preference, each instruction visited once. */
  private def reach(pc0: Int, atStart: Boolean, atEnd: Boolean): Array[Int] = {
    val reached = Array.newBuilder[Int]
    val visited = new java.util.BitSet(size)
    var stack = List(pc0)
    while (stack.nonEmpty) {
      val pc = stack.head
      stack = stack.tail
      if (!visited.get(pc)) {
        visited.set(pc)
        opcodes(pc) match {
          case MatchLabel | Done => reached += pc
          case Split => stack = a(pc) :: b(pc) :: stack
          case Jump => stack = a(pc) :: stack
          case PartitionStart => if (atStart) stack = (pc + 1) :: stack
          case PartitionEnd => if (atEnd) stack = (pc + 1) :: stack else reached += pc
          case ExclusionStart | ExclusionEnd => stack = (pc + 1) :: stack
        }
      }
    }
    reached.result()
  }

  override def toString: String = opcodes.indices.map { k =>
    val op = opcodes(k) match {
      case Program.MatchLabel => s"match ${labels(a(k))}"
      case Program.Split => s"split ${a(k)}, ${b(k)}"
      case Program.Jump => s"jump ${a(k)}"
      case Program.PartitionStart => "^"
      case Program.PartitionEnd => "$"
      case Program.ExclusionStart => "{-"
      case Program.ExclusionEnd => "-}"
      case Program.Done => "done"
    }
    s"$k: $op"
  }.mkString("\n")
}

object Program {
  final val MatchLabel = 0
  final val Split = 1
  final val Jump = 2
  final val PartitionStart = 3
  final val PartitionEnd = 4
  final val ExclusionStart = 5
  final val ExclusionEnd = 6
  final val Done = 7

  /** The most instructions a program's closures keep in all (4 bytes each). */
  final val ClosureCache = 1L << 22
}
