package io.sparkcer.engine.syntax

/** A place in the query text: 1-based line and column, 0-based character offset. */
final case class Position(line: Int, column: Int, offset: Int) {
  override def toString: String = s"line $line, column $column"
}

object Position {
  val Unknown: Position = Position(0, 0, -1)
  val Start: Position = Position(1, 1, 0)

  /** The position of offset `to` in `text`, counted on from `from` (an earlier position in the same text). */
  def advance(text: String, from: Position, to: Int): Position = {
    var (line, column) = (from.line, from.column)
    for (i <- from.offset until to) if (text.charAt(i) == '\n') { line += 1; column = 1 }
    else column += 1
    Position(line, column, to)
  }
}

/** A node of a syntax tree that knows where its text starts: formulas, filters and predicate expressions. */
trait Positioned { def pos: Position }

/** An identifier with the place it was written, so that analysis errors can point at it. */
final case class Name(value: String, pos: Position) {
  override def toString: String = value
}
