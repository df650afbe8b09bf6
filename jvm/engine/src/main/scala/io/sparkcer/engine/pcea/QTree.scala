package io.sparkcer.engine.pcea

/**
 * The q-tree of a hierarchical conjunctive query (Pinto and Riveros, §4): a tree with one leaf per atom and one inner node per
 * variable, such that the inner nodes above atom i are exactly i's variables. Here the atoms are the operands of a
 * conjunction (`φ1 AND φ2 AND ...`, each a pattern of its own) and the variables are the equality classes that relate
 * several of them; classes that relate the same operands are one node (the compact q-tree). When no class relates
 * them all, the root is a node without classes (the paper's fresh variable for a disconnected query).
 *
 * Nodes 0 until `leaves` are the operands; the inner nodes follow; `parent(root)` is -1.
 *
 * @param classes per node, the classes of an inner node (empty for leaves and for a root without classes)
 */
final class QTree private (val leaves: Int, val classes: IndexedSeq[Seq[Int]], val parent: IndexedSeq[Int],
    val root: Int) {
  def nodes: Range = parent.indices
  def inner: Range = leaves until parent.length

  /** The inner nodes above `n`, from its parent to the root: the variables of an atom. */
  def ancestors(n: Int): List[Int] = if (parent(n) < 0) Nil else parent(n) :: ancestors(parent(n))

  /** The classes of the nodes above `n`: what a subtree shares with the rest of the query, its join key. */
  def classesAbove(n: Int): Seq[Int] = ancestors(n).flatMap(classes).sorted

  /**
   * C_{x,i} of Thm 4.1: when operand i's last event completes the subtree of x (a variable of i), the subtrees it
   * joins, each complete already: everything hanging from a variable of i at or below x, except i and its variables.
   */
  def incomplete(x: Int, i: Int): Seq[Int] = {
    val above = ancestors(i).toSet
    nodes.filter { l =>
      val p = parent(l)
      p >= 0 && above(p) && (p == x || ancestors(p).contains(x)) && l != i && !above(l)
    }
  }

  /** The tree as text: `{classes}(children)`, with the leaves and classes named by the caller. */
  def describe(leaf: Int => String, cls: Int => String): String = {
    def node(n: Int): String =
      if (n < leaves) leaf(n)
      else {
        val children = nodes.filter(parent(_) == n).map(node).mkString(", ")
        val named = if (classes(n).isEmpty) "()" else classes(n).map(cls).mkString(" ")
        s"$named[$children]"
      }
    node(root)
  }
}

object QTree {

  /**
   * The q-tree of `leaves` operands related by the given classes (each with the operands it touches, two or more), or
   * why there is none: two classes that relate overlapping sets of operands, neither inside the other. Then the
   * query is not hierarchical, and by the paper's Thm 4.2 no PCEA evaluates it.
   */
  def of(leaves: Int, relating: Map[Int, Set[Int]], describeClass: Int => String, describeLeaf: Int => String)
      : Either[String, QTree] = {
    val groups = relating.toSeq.groupBy(_._2).toSeq.map { case (set, cs) => set -> cs.map(_._1).sorted }
      .sortBy { case (set, cs) => (-set.size, cs.head) }
    val crossing =
      for ((a, ca) <- groups; (b, cb) <- groups if a != b && (a & b).nonEmpty && !a.subsetOf(b) && !b.subsetOf(a))
        yield s"the equalities are not hierarchical: ${ca.map(describeClass).mkString(" ")} relates " +
          s"${a.toSeq.sorted.map(describeLeaf).mkString(", ")} and ${cb.map(describeClass).mkString(" ")} relates " +
          s"${b.toSeq.sorted.map(describeLeaf).mkString(", ")}, which overlap without one holding the other (no PCEA " +
          "evaluates such a conjunction, Thm 4.2 of the paper)"
    crossing.headOption.toLeft(build(leaves, groups))
  }

  private def build(leaves: Int, groups: Seq[(Set[Int], Seq[Int])]): QTree = {
    val all = (0 until leaves).toSet
    val inner = if (groups.headOption.exists(_._1 == all)) groups else (all -> Seq.empty[Int]) +: groups
    val sets = inner.map(_._1)
    val classes = IndexedSeq.fill(leaves)(Seq.empty[Int]) ++ inner.map(_._2)
    // Each node's parent is the smallest set that holds it (sets are laminar, so it is unique; sorted largest first).
    def smallestAbove(inside: Set[Int] => Boolean, except: Int): Int =
      sets.indices.filter(s => s + leaves != except && inside(sets(s))).last + leaves
    val parent = (0 until leaves).map(i => smallestAbove(_.contains(i), -1)) ++
      sets.indices.map(s =>
        if (s == 0) -1 else smallestAbove(set => sets(s).subsetOf(set) && set != sets(s), s + leaves))
    new QTree(leaves, classes, parent, root = leaves)
  }
}
