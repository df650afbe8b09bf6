package io.sparkcer.engine.automaton

import java.util.Arrays

/**
 * Interns the bit vectors of guard outcomes ("symbols"). Events that satisfy the same guards behave the same in
 * every state, so transitions are cached per (state, symbol id) and the hot path is one hash lookup per event.
 * Open addressing over the words themselves: no boxing, no allocation once a symbol has been seen.
 */
final class SymbolTable(words: Int) {
  private var slots = Array.fill(64)(-1) // symbol id per hash slot
  private var vectors = new Array[Long](64 * words) // symbol id -> its words
  private var count = 0

  def size: Int = count

  private def vector(symbol: Int): Array[Long] = Arrays.copyOfRange(vectors, symbol * words, (symbol + 1) * words)

  def intern(bits: Array[Long]): Int = {
    var slot = hash(bits) & (slots.length - 1)
    while (slots(slot) >= 0) {
      if (same(slots(slot), bits)) return slots(slot)
      slot = (slot + 1) & (slots.length - 1)
    }
    val id = count
    if ((id + 1) * words > vectors.length) vectors = Arrays.copyOf(vectors, vectors.length * 2)
    System.arraycopy(bits, 0, vectors, id * words, words)
    slots(slot) = id
    count += 1
    if (count * 2 > slots.length) rehash()
    id
  }

  private def same(id: Int, bits: Array[Long]): Boolean = {
    var i = 0
    while (i < words) { if (vectors(id * words + i) != bits(i)) return false; i += 1 }
    true
  }

  private def hash(bits: Array[Long]): Int = {
    var h = 0L
    var i = 0
    while (i < words) { h = (h ^ bits(i)) * 0x9e3779b97f4a7c15L; i += 1 }
    (h ^ (h >>> 29)).toInt
  }

  private def rehash(): Unit = {
    slots = Array.fill(slots.length * 2)(-1)
    for (id <- 0 until count) {
      val v = vector(id)
      var slot = hash(v) & (slots.length - 1)
      while (slots(slot) >= 0) slot = (slot + 1) & (slots.length - 1)
      slots(slot) = id
    }
  }
}

object SymbolTable {
  /** Whether guard (or check) `bit` holds in a symbol: bit `bit` of its words. */
  def has(symbol: Array[Long], bit: Int): Boolean = ((symbol(bit >>> 6) >>> (bit & 63)) & 1L) != 0L

  /** Sets guard (or check) `bit` in a symbol. */
  def set(symbol: Array[Long], bit: Int): Unit = symbol(bit >>> 6) |= 1L << (bit & 63)
}
