package io.sparkcer.engine.rowpattern

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
  def size: Int = opcodes.length

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
}
