package io.sparkcer.engine.syntax

import java.util.Locale

/** The units of a duration, as CEQL's `WITHIN 1 HOURS` and MATCH_RECOGNIZE's `WITHIN INTERVAL '1' HOUR` name them. */
object DurationUnits {
  /** Each unit's singular name and its milliseconds, the largest first. */
  val Units: Seq[(String, Long)] =
    Seq("DAY" -> 86400000L, "HOUR" -> 3600000L, "MINUTE" -> 60000L, "SECOND" -> 1000L, "MILLISECOND" -> 1L)

  private val byName: Map[String, Long] = Units.flatMap { case (u, ms) => Seq(u -> ms, u + "S" -> ms) }.toMap

  /** A unit's milliseconds by its name, singular or plural, in any case. */
  def millis(word: String): Option[Long] = byName.get(word.toUpperCase(Locale.ROOT))
}
