import sbt._
import sbt.Keys._

/**
 * The packages of a module depend on each other without a cycle: a reader of one package can understand it
 * from the packages below it alone. A package depends on another where its code (comments and strings left out)
 * names it, in an import or a qualified name. `packageCycles` fails on any dependency that is part of a cycle,
 * naming the files that make it.
 */
object PackageCycles {
  val packageCycles = taskKey[Unit]("Fails where the module's packages depend on each other in a cycle")

  def settings(root: String): Seq[Setting[_]] = Seq(
    packageCycles := {
      val sources = (Compile / unmanagedSources).value.filter(_.getName.endsWith(".scala"))
      val found = cyclic(dependencies(sources.map(f => f.getName -> IO.read(f)), root))
      val problems = found.toSeq.sortBy(_._1).map { case ((from, to), files) =>
        s"$from -> $to closes a cycle between packages (named in ${files.mkString(", ")}): move what both need " +
          s"below them, or name $to from $from no more"
      }
      if (problems.nonEmpty)
        throw new MessageOnlyException(problems.mkString(s"package cycles in ${name.value}:\n  ", "\n  ", ""))
    })

  /**
   * Per package (relative to `root`, [[Root]] for the root), the packages its sources (file name, text) name, each
   * with the files that do. Names relative to an enclosing package (`import eval.Run` inside `io.sparkcer.engine`)
   * are not read: the modules write every package out.
   */
  def dependencies(sources: Seq[(String, String)], root: String): Map[String, Map[String, Seq[String]]] = {
    val read = sources.map { case (file, text) =>
      val code = withoutCommentsAndStrings(text)
      val pkg = "(?m)^package (?!object\\b)([\\w.]+)".r.findAllMatchIn(code).map(_.group(1)).mkString(".")
      (relative(pkg, root), file, code)
    }
    val packages = read.map(_._1).toSet
    val named = s"${java.util.regex.Pattern.quote(root)}((?:\\.[a-z]\\w*)*)".r
    read.groupBy(_._1).map { case (from, files) =>
      from -> files.flatMap { case (_, file, code) =>
        named.findAllMatchIn(code).map(m => longestPackage(m.group(1).stripPrefix("."), packages)).filter(_ != from)
          .map(_ -> file)
      }.groupBy(_._1).map { case (to, uses) => to -> uses.map(_._2).distinct.sorted }
    }
  }

  /** The dependencies that are part of a cycle: both ends in one strongly connected component. */
  def cyclic(graph: Map[String, Map[String, Seq[String]]]): Map[(String, String), Seq[String]] = {
    def reach(from: String): Set[String] = {
      var seen = Set(from)
      var frontier = Seq(from)
      while (frontier.nonEmpty) {
        frontier = frontier.flatMap(p => graph.getOrElse(p, Map.empty).keys).filterNot(seen).distinct
        seen ++= frontier
      }
      seen
    }
    val reachable = graph.keys.map(p => p -> reach(p)).toMap
    for ((from, to) <- graph; (dep, files) <- to if reachable.get(dep).exists(_(from))) yield (from, dep) -> files
  }

  private def relative(pkg: String, root: String): String =
    if (pkg == root) Root else pkg.stripPrefix(root + ".")

  /** How the module's root package is named here. */
  val Root = "(root)"

  /** The longest of `packages` that `path` (dot-separated, under the root) starts with. */
  private def longestPackage(path: String, packages: Set[String]): String = {
    val parts = if (path.isEmpty) Vector.empty else path.split('.').toVector
    (parts.length to 1 by -1).map(n => parts.take(n).mkString(".")).find(packages).getOrElse(Root)
  }

  /** The code without comments, string and character literals (which may name a package in prose). */
  private def withoutCommentsAndStrings(text: String): String = {
    val out = new StringBuilder
    def upTo(end: String, from: Int): Int = { val at = text.indexOf(end, from); if (at < 0) text.length else at }
    def past(end: String, from: Int): Int = math.min(upTo(end, from) + end.length, text.length)
    var i = 0
    while (i < text.length) {
      if (text.startsWith("//", i)) i = upTo("\n", i) // the line's end stays: a package clause may follow
      else if (text.startsWith("/*", i)) i = past("*/", i + 2)
      else if (text.startsWith("\"\"\"", i)) i = past("\"\"\"", i + 3)
      else if (text(i) == '\'' && i + 2 < text.length && text(i + 2) == '\'') i += 3 // 'a', '"'
      else if (text.startsWith("'\\", i)) i = past("'", i + 3) // '\'', '\n'
      else if (text(i) == '"') {
        i += 1
        while (i < text.length && text(i) != '"' && text(i) != '\n') i += (if (text(i) == '\\') 2 else 1)
        i += 1
      } else { out += text(i); i += 1 }
    }
    out.toString
  }
}
