using System.CommandLine.Parsing;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// System.CommandLine's tokens with the command-line argument each came from: <c>--in=x</c> is one argument but
/// two tokens (the option and its attached value). Errors name an argument's position, never its text.
/// </summary>
internal sealed class TokenPositions
{
    private readonly IReadOnlyList<Token> _tokens;
    private readonly int[] _argumentIndex;
    private readonly bool[] _attached;

    public TokenPositions(IReadOnlyList<Token> tokens, IReadOnlyList<string> args)
    {
        _tokens = tokens;
        _argumentIndex = new int[tokens.Count];
        _attached = new bool[tokens.Count];
        int argument = 0;
        for (int i = 0; i < tokens.Count; i++)
        {
            _argumentIndex[i] = argument;
            string name = tokens[i].Value;
            bool split = tokens[i].Type == TokenType.Option
                && i + 1 < tokens.Count
                && argument < args.Count
                && args[argument].Length > name.Length
                && args[argument].StartsWith(name, StringComparison.Ordinal)
                && string.Equals(args[argument][(name.Length + 1)..], tokens[i + 1].Value, StringComparison.Ordinal);
            if (split)
            {
                // The option's value came from the same argument, after '=' (or ':').
                i++;
                _argumentIndex[i] = argument;
                _attached[i] = true;
            }

            argument++;
        }
    }

    public int Count => _tokens.Count;

    public Token this[int index] => _tokens[index];

    /// <summary>The index in the command line of the argument token <paramref name="index"/> came from.</summary>
    public int ArgumentIndex(int index) => _argumentIndex[index];

    /// <summary>Whether token <paramref name="index"/> is a value written in the same argument as its option.</summary>
    public bool IsAttached(int index) => _attached[index];
}
