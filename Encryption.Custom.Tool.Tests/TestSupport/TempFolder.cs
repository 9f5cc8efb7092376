namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>A fresh folder for one test's files, deleted afterwards.</summary>
internal sealed class TempFolder : IDisposable
{
    public TempFolder()
    {
        Path = Directory.CreateTempSubdirectory("cosmos-encryption-tests-").FullName;
    }

    public string Path { get; }

    /// <summary>The full path of <paramref name="name"/> in this folder (not created).</summary>
    public string File(string name) => System.IO.Path.Combine(Path, name);

    public string Write(string name, string content)
    {
        string path = File(name);
        System.IO.File.WriteAllText(path, content);
        return path;
    }

    public string Write(string name, byte[] content)
    {
        string path = File(name);
        System.IO.File.WriteAllBytes(path, content);
        return path;
    }

    /// <summary>The names of every file in the folder, hidden temporary files included, sorted.</summary>
    public string[] FileNames() => Directory.GetFiles(Path).Select(System.IO.Path.GetFileName).Order(StringComparer.Ordinal).ToArray()!;

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // A leftover temp folder must not fail a test that passed.
        }
    }
}
