package io.sparkcer

package object engine {
  /** A match over the engine's own rows. */
  type Match = eval.MatchOf[Event]
}
