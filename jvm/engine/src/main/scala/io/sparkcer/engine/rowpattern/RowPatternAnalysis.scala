package io.sparkcer.engine.rowpattern

import java.util.Locale

import io.sparkcer.engine.syntax.{Name, PatternException}

/**
 * A MATCH_RECOGNIZE clause checked and compiled: its pattern variables numbered (labels), its union variables as
 * sets of labels, and its program.
 *
 * @param labels  the primary pattern variables, canonical, in order of first appearance in PATTERN
 * @param subsets the SUBSET variables, canonical, each to its members' labels
 * @param defined per label, whether DEFINE gives it a condition (the others match any row)
 */
final case class AnalyzedRowPattern(clause: MatchRecognize, labels: IndexedSeq[String], subsets: Map[String, Set[Int]],
    defined: IndexedSeq[Boolean], program: Program) {
  private val byName = labels.zipWithIndex.toMap

  def label(name: String): Option[Int] = byName.get(name)

  /** The labels a variable stands for: itself, or a union's members; None for a name that is neither. */
  def labelsOf(variable: String): Option[Set[Int]] = byName.get(variable).map(Set(_)).orElse(subsets.get(variable))
}

object RowPatternAnalysis {
  /** Pattern variables are names without regard to case, as Spark's columns are by default. */
  def canonical(name: Name): String = name.value.toUpperCase(Locale.ROOT)

  def analyze(clause: MatchRecognize, query: String): AnalyzedRowPattern = {
    def fail(problem: String, at: Name): Nothing = throw new PatternException(problem, at.pos, query, at.value.length)

    val inPattern = RowPattern.variables(clause.pattern)
    val labels = inPattern.map(canonical).distinct.toIndexedSeq
    val primary = labels.toSet

    clause.defines.groupBy(d => canonical(d.variable)).foreach { case (v, ds) =>
      if (ds.length > 1)
        fail(s"pattern variable $v is defined twice (DUPLICATE_PATTERN_VARIABLE); join the conditions with AND",
          ds(1).variable)
    }
    clause.defines.foreach { d =>
      if (!primary(canonical(d.variable)))
        fail(s"DEFINE names ${d.variable.value}, which PATTERN does not use; the pattern's variables are " +
            s"${labels.mkString(", ")}", d.variable)
    }

    val subsets = clause.subsets.foldLeft(Map.empty[String, Set[Int]]) { (done, s) =>
      val name = canonical(s.name)
      if (primary(name))
        fail(s"SUBSET $name names a pattern variable of PATTERN; a union variable needs a name of its own", s.name)
      if (done.contains(name)) fail(s"SUBSET $name is defined twice", s.name)
      s.members.foreach { m =>
        if (!primary(canonical(m)))
          fail(s"SUBSET $name has the member ${m.value}, which is not a pattern variable of PATTERN; its variables " +
              s"are ${labels.mkString(", ")}", m)
      }
      done + (name -> s.members.map(m => labels.indexOf(canonical(m))).toSet)
    }

    clause.skip match {
      case SkipTo.First(v) if !primary(canonical(v)) && !subsets.contains(canonical(v)) => unknownSkip(v, labels, query)
      case SkipTo.Last(v) if !primary(canonical(v)) && !subsets.contains(canonical(v)) => unknownSkip(v, labels, query)
      case _ =>
    }

    val definedNames = clause.defines.map(d => canonical(d.variable)).toSet
    val program = ProgramCompiler.compile(clause.pattern, labels, labels.indexOf(_), query)
    AnalyzedRowPattern(clause, labels, subsets, labels.map(definedNames), program)
  }

  private def unknownSkip(v: Name, labels: Seq[String], query: String): Nothing =
    throw new PatternException(
      s"AFTER MATCH SKIP TO ${v.value}: ${v.value} is neither a pattern variable nor a SUBSET; " +
        s"the pattern's variables are ${labels.mkString(", ")}",
      v.pos,
      query,
      v.value.length
    )
}
