package io.sparkcer.engine.automaton

import scala.reflect.ClassTag

/**
 * What an automaton built lazily as the stream asks (CORE §4.4) remembers of each of its states: the value a symbol
 * gives it (its moves, its step), computed once and then read by a table lookup. States and symbols are small
 * numbers, interned in the order the stream reaches them; the table grows with both.
 */
final class TransitionCache[T >: Null <: AnyRef: ClassTag] {
  private var rows = new Array[Array[T]](16)

  /** The value cached for a state and a symbol, or null. */
  def get(state: Int, symbol: Int): T = {
    if (state >= rows.length) return null
    val row = rows(state)
    if (row == null || symbol >= row.length) null else row(symbol)
  }

  def put(state: Int, symbol: Int, value: T): Unit = {
    if (state >= rows.length) rows = java.util.Arrays.copyOf(rows, math.max(rows.length * 2, state + 1))
    var row = rows(state)
    if (row == null || symbol >= row.length) {
      val grown = new Array[T](math.max(16, Integer.highestOneBit(symbol) << 1))
      if (row != null) System.arraycopy(row, 0, grown, 0, row.length)
      rows(state) = grown
      row = grown
    }
    row(symbol) = value
  }
}
