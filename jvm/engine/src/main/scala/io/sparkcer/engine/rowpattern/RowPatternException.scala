package io.sparkcer.engine.rowpattern

/**
 * A runtime error of the row pattern's evaluation: AFTER MATCH SKIP to a row it must not skip to ([[AfterMatchSkip]]),
 * or too many rows read again for deferred starts ([[PartialMatchBound]]).
 */
final class RowPatternException(message: String) extends RuntimeException(message)
