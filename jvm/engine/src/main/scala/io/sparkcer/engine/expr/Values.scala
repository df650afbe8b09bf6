package io.sparkcer.engine.expr

import java.util.regex.Pattern

/** The engine's value model: java.lang.Long, java.lang.Double, String, java.lang.Boolean and null. */
object Values {
  /** What `compare` answers for values that cannot be compared (NULL, or a string against a number). */
  val Incomparable: Int = Int.MinValue

  def compare(a: Any, b: Any): Int = (a, b) match {
    case (null, _) | (_, null) => Incomparable
    case (x: java.lang.Long, y: java.lang.Long) => java.lang.Long.compare(x, y)
    case (x: String, y: String) => Integer.signum(x.compareTo(y))
    case (x: java.lang.Boolean, y: java.lang.Boolean) => java.lang.Boolean.compare(x, y)
    case _ =>
      (toDouble(a), toDouble(b)) match {
        case (Some(x), Some(y)) => java.lang.Double.compare(x, y)
        case _ => Incomparable
      }
  }

  /**
   * A value as a hash key for `compare`'s equality: a whole Double is the Long it equals (so 2 and 2.0, 0.0 and -0.0
   * are one key); other values are themselves.
   */
  def key(v: Any): AnyRef = v match {
    case d: java.lang.Double if d.doubleValue.isWhole && math.abs(d.doubleValue) < 9.2e18 =>
      java.lang.Long.valueOf(d.longValue)
    case other => other.asInstanceOf[AnyRef]
  }

  def toDouble(v: Any): Option[Double] = v match {
    case n: java.lang.Number => Some(n.doubleValue)
    case _ => None
  }

  /** Reads a CSV cell: an integer, a decimal, true/false, empty as NULL, anything else as a string. */
  def parse(text: String): Any =
    if (text.isEmpty) null
    else if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) java.lang.Boolean.valueOf(text)
    else
      text.toLongOption.map(Long.box)
        .orElse(if (looksNumeric(text)) text.toDoubleOption.map(Double.box) else None)
        .getOrElse(text)

  private def looksNumeric(text: String): Boolean = {
    val c = text.charAt(0)
    c.isDigit || ((c == '-' || c == '.' || c == '+') && text.length > 1)
  }

  /** SQL LIKE: `%` matches any run of characters, `_` one character, `\` escapes either. */
  def likePattern(like: String): Pattern = {
    val regex = new StringBuilder
    var i = 0
    while (i < like.length) {
      like.charAt(i) match {
        case '\\' if i + 1 < like.length => i += 1; regex.append(Pattern.quote(like.charAt(i).toString))
        case '%' => regex.append(".*")
        case '_' => regex.append('.')
        case c => regex.append(Pattern.quote(c.toString))
      }
      i += 1
    }
    Pattern.compile(regex.toString, Pattern.DOTALL)
  }
}
