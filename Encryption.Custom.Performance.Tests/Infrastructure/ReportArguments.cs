using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Infrastructure;

/// <summary>The arguments the in-process reports share: <c>[--sizes 1024,8192] [--shapes published,mixed,lookup]</c>.</summary>
public static class ReportArguments
{
    /// <summary>
    /// Parses the arguments; unset ones default to every size of <see cref="BenchmarkDocuments"/> and to
    /// <paramref name="defaultShapes"/> (<see cref="BenchmarkDocuments.Shapes"/> when not given).
    /// </summary>
    public static bool TryParse(
        string[] args,
        [NotNullWhen(true)] out IReadOnlyList<int>? sizes,
        [NotNullWhen(true)] out IReadOnlyList<DocumentShape>? shapes,
        [NotNullWhen(false)] out string? error,
        IReadOnlyList<DocumentShape>? defaultShapes = null)
    {
        ArgumentNullException.ThrowIfNull(args);
        sizes = BenchmarkDocuments.Sizes;
        shapes = defaultShapes ?? BenchmarkDocuments.Shapes;
        error = null;
        for (int i = 0; i < args.Length; i++)
        {
            string? value = i + 1 < args.Length ? args[i + 1] : null;
            switch (args[i])
            {
                case "--sizes" when value is not null:
                    int[] parsed = value.Split(',').Select(s => int.TryParse(s, NumberStyles.None, CultureInfo.InvariantCulture, out int size) ? size : -1).ToArray();
                    if (parsed.Any(size => size < BenchmarkDocuments.MinimumSize))
                    {
                        error = $"Sizes are byte counts of at least {BenchmarkDocuments.MinimumSize}: '{value}'.";
                        return Fail(out sizes, out shapes);
                    }

                    sizes = parsed;
                    i++;
                    break;
                case "--shapes" when value is not null:
                    var list = new List<DocumentShape>();
                    foreach (string name in value.Split(','))
                    {
                        if (!Enum.TryParse(name, ignoreCase: true, out DocumentShape shape) || !Enum.IsDefined(shape))
                        {
                            error = $"Unknown shape '{name}'.";
                            return Fail(out sizes, out shapes);
                        }

                        list.Add(shape);
                    }

                    shapes = list;
                    i++;
                    break;
                default:
                    error = $"Unknown argument '{args[i]}'.";
                    return Fail(out sizes, out shapes);
            }
        }

        return true;
    }

    private static bool Fail(out IReadOnlyList<int>? sizes, out IReadOnlyList<DocumentShape>? shapes)
    {
        sizes = null;
        shapes = null;
        return false;
    }
}
