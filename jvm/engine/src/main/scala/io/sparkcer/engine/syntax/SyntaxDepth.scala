package io.sparkcer.engine.syntax

import scala.collection.mutable

/**
 * Bounds how deep a syntax tree is, for the code that walks it recursively afterwards (the analysis, the compiler,
 * the interpreter): a chain like `A ; A ; ... ; A` or `x + x + ... + x` is as deep as it is long.
 */
object SyntaxDepth {

  /** Fails at the first [[Positioned]] node found more than `limit` such nodes deep, walking with a stack of its own. */
  def check(root: Positioned, limit: Int, text: String, what: String): Unit = {
    val pending = mutable.Stack[(Any, Int)](root -> 1)
    while (pending.nonEmpty) {
      val (node, depth) = pending.pop()
      node match {
        case p: Positioned if depth > limit =>
          throw new PatternException(
            s"expected $what at most $limit operators deep, found a deeper one; split it into " +
              "smaller parts (several queries, or several filters)",
            p.pos,
            text
          )
        case p: Positioned => p.asInstanceOf[Product].productIterator.foreach(c => pending.push(c -> (depth + 1)))
        case children: Iterable[_] => children.foreach(c => pending.push(c -> depth))
        case other: Product => other.productIterator.foreach(c => pending.push(c -> depth))
        case _ =>
      }
    }
  }
}
