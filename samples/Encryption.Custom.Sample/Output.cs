using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace EncryptionSample;

/// <summary>Output helpers.</summary>
internal static class Output
{
    public static void Step(string text)
    {
        System.Console.WriteLine();
        System.Console.WriteLine("== " + text);
    }

    public static void Line(string text) => System.Console.WriteLine("   " + text);

    /// <summary>Prints whether a check held ("ok:" or "FAILED:") and returns it.</summary>
    public static bool Check(bool condition, string what)
    {
        Line((condition ? "ok: " : "FAILED: ") + what);
        return condition;
    }

    /// <summary>Prints two JSON documents side by side, one property per line.</summary>
    public static void SideBySide(string leftTitle, JObject left, string rightTitle, JObject right)
    {
        const int Width = 58;
        System.Console.WriteLine($"   {leftTitle,-Width} | {rightTitle}");
        System.Console.WriteLine($"   {new string('-', Width)} | {new string('-', Width)}");
        IEnumerable<string> names = left.Properties().Select(p => p.Name).Union(right.Properties().Select(p => p.Name));
        foreach (string name in names.Where(n => n is not ("_rid" or "_self" or "_attachments" or "_ts" or "_lsn")))
        {
            System.Console.WriteLine($"   {Cell(name, left[name], Width),-Width} | {Cell(name, right[name], Width)}");
        }
    }

    private static string Cell(string name, JToken? value, int width)
    {
        if (value is null)
        {
            return string.Empty;
        }

        string text = $"{name}: {value.ToString(Formatting.None)}";
        return text.Length <= width ? text : text[..(width - 3)] + "...";
    }
}
