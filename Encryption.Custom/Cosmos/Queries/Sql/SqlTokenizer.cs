using System.Globalization;
using System.Text;

namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>
/// Splits Cosmos NoSQL query text into tokens. Anything it does not know (a character outside the language, an
/// unknown string escape, an unterminated string, a comment) is a <see cref="SqlSyntaxException"/>: comments are
/// not skipped on purpose, so that text the service might read differently never hides a property from the guard.
/// </summary>
internal static class SqlTokenizer
{
    // Longest first, so that "??" wins over "?" and ">>>" over ">>".
    private static readonly string[] s_symbols =
    [
        ">>>", "<<", ">>", "<=", ">=", "<>", "!=", "??", "||",
        "(", ")", "[", "]", "{", "}", ",", ".", ":", "?", "=", "<", ">", "+", "-", "*", "/", "%", "|", "&", "^", "~",
    ];

    // Cosmos DB's grammar skips only space, tab, carriage return and line feed between tokens. Anything else
    // char.IsWhiteSpace would skip (vertical tab, form feed, U+0085, U+00A0, U+2028, ...) is a character outside the
    // language there, so it is one here too: the guard must not read as two tokens what the service refuses or
    // reads differently.
    private static bool IsWhiteSpace(char c) => c is ' ' or '\t' or '\r' or '\n';

    /// <summary>The tokens of <paramref name="text"/>, ending with one <see cref="SqlTokenKind.End"/> token.</summary>
    /// <exception cref="SqlSyntaxException">The text holds something outside the language.</exception>
    public static List<SqlToken> Tokenize(string text)
    {
        var tokens = new List<SqlToken>();
        int i = 0;
        while (true)
        {
            while (i < text.Length && IsWhiteSpace(text[i]))
            {
                i++;
            }

            if (i >= text.Length)
            {
                tokens.Add(new SqlToken(SqlTokenKind.End, string.Empty, i, i));
                return tokens;
            }

            char c = text[i];
            int start = i;
            if (IsIdentifierStart(c))
            {
                i = ReadIdentifierEnd(text, i);
                tokens.Add(new SqlToken(SqlTokenKind.Identifier, text[start..i], start, i));
            }
            else if (c == '@')
            {
                i = ReadIdentifierEnd(text, i + 1);
                if (i == start + 1)
                {
                    throw new SqlSyntaxException("A parameter needs a name after '@'.", start);
                }

                tokens.Add(new SqlToken(SqlTokenKind.Parameter, text[start..i], start, i));
            }
            else if (char.IsAsciiDigit(c) || (c == '.' && i + 1 < text.Length && char.IsAsciiDigit(text[i + 1])))
            {
                i = ReadNumberEnd(text, i);
                tokens.Add(new SqlToken(SqlTokenKind.Number, text[start..i], start, i));
            }
            else if (c is '\'' or '"')
            {
                string value = ReadString(text, ref i);
                tokens.Add(new SqlToken(SqlTokenKind.String, value, start, i));
            }
            else if (c == '-' && i + 1 < text.Length && text[i + 1] == '-')
            {
                throw new SqlSyntaxException("Comments are not read.", start);
            }
            else if (c == '/' && i + 1 < text.Length && text[i + 1] == '*')
            {
                throw new SqlSyntaxException("Comments are not read.", start);
            }
            else
            {
                string symbol = MatchSymbol(text, i) ?? throw new SqlSyntaxException($"Unexpected character U+{(int)c:X4}.", start);
                i += symbol.Length;
                tokens.Add(new SqlToken(SqlTokenKind.Symbol, symbol, start, i));
            }
        }
    }

    private static bool IsIdentifierStart(char c) => char.IsAsciiLetter(c) || c == '_';

    private static int ReadIdentifierEnd(string text, int i)
    {
        while (i < text.Length && (char.IsAsciiLetterOrDigit(text[i]) || text[i] == '_'))
        {
            i++;
        }

        return i;
    }

    private static int ReadNumberEnd(string text, int i)
    {
        if (text[i] == '0' && i + 1 < text.Length && text[i + 1] is 'x' or 'X')
        {
            int hex = i + 2;
            while (hex < text.Length && char.IsAsciiHexDigit(text[hex]))
            {
                hex++;
            }

            return hex > i + 2 ? CheckEnd(text, hex) : throw new SqlSyntaxException("A hexadecimal number needs digits.", i);
        }

        i = Digits(text, i);
        if (i < text.Length && text[i] == '.')
        {
            i = Digits(text, i + 1);
        }

        if (i < text.Length && text[i] is 'e' or 'E')
        {
            int exponent = i + 1;
            if (exponent < text.Length && text[exponent] is '+' or '-')
            {
                exponent++;
            }

            int end = Digits(text, exponent);
            i = end > exponent ? end : throw new SqlSyntaxException("An exponent needs digits.", i);
        }

        return CheckEnd(text, i);
    }

    // "12abc" is not a number followed by a name.
    private static int CheckEnd(string text, int i) =>
        i < text.Length && (char.IsAsciiLetterOrDigit(text[i]) || text[i] is '_' or '.')
            ? throw new SqlSyntaxException("A number runs into a name.", i)
            : i;

    private static int Digits(string text, int i)
    {
        while (i < text.Length && char.IsAsciiDigit(text[i]))
        {
            i++;
        }

        return i;
    }

    private static string ReadString(string text, ref int i)
    {
        char quote = text[i];
        int start = i;
        i++;
        var value = new StringBuilder();
        while (i < text.Length)
        {
            char c = text[i];
            if (c == quote)
            {
                i++;
                return value.ToString();
            }

            if (c != '\\')
            {
                value.Append(c);
                i++;
                continue;
            }

            if (i + 1 >= text.Length)
            {
                break;
            }

            char escape = text[i + 1];
            i += 2;
            switch (escape)
            {
                case '\'' or '"' or '\\' or '/':
                    value.Append(escape);
                    break;
                case 'b':
                    value.Append('\b');
                    break;
                case 'f':
                    value.Append('\f');
                    break;
                case 'n':
                    value.Append('\n');
                    break;
                case 'r':
                    value.Append('\r');
                    break;
                case 't':
                    value.Append('\t');
                    break;
                case 'u' when i + 4 <= text.Length
                    && ushort.TryParse(text.AsSpan(i, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ushort code):
                    value.Append((char)code);
                    i += 4;
                    break;
                default:
                    throw new SqlSyntaxException("Unknown escape in a string.", i - 2);
            }
        }

        throw new SqlSyntaxException("Unterminated string.", start);
    }

    private static string? MatchSymbol(string text, int i)
    {
        foreach (string symbol in s_symbols)
        {
            if (string.CompareOrdinal(text, i, symbol, 0, symbol.Length) == 0)
            {
                return symbol;
            }
        }

        return null;
    }
}
