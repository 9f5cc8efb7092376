using System.Diagnostics;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// What the scan of one document or one feed page found: documents, their top-level properties, unescaped names
/// and the <c>_ep</c> entries of the document being prepared. Holds offsets and names only, never values.
/// Instances are pooled and their arrays kept, so a warm scan allocates nothing.
/// </summary>
internal sealed class DecryptionScan
{
    private static readonly DecryptionScan?[] s_pool = new DecryptionScan?[Math.Clamp(Environment.ProcessorCount * 2, 4, 64)];

    private byte[] _names = new byte[256];

    public PropertyRecord[] Properties { get; private set; } = new PropertyRecord[32];

    public int PropertyCount { get; private set; }

    public DocumentRecord[] Documents { get; private set; } = new DocumentRecord[1];

    public int DocumentCount { get; private set; }

    /// <summary>Elements of a feed page's <c>Documents</c> array (objects or not).</summary>
    public int ArrayLength { get; set; }

    public PathRecord[] Paths { get; private set; } = new PathRecord[8];

    public int PathCount { get; private set; }

    /// <summary>The <c>_ep</c> names of the document being prepared.</summary>
    public Utf8NameTable PathTable { get; } = new();

    private int NamesLength { get; set; }

    // The nested _ep entries of the document being prepared, each as a 4-byte length and its bytes (the key of
    // DocumentSelectors.Get).
    private byte[] _selectors = new byte[128];

    private int SelectorsLength { get; set; }

    /// <summary>
    /// Of the document just written by <c>DocumentDecryptor</c>: bit <c>i</c> is set when a value of its nested
    /// selector <c>i</c> was decrypted (for its decryption context).
    /// </summary>
    public ulong DecryptedSelectors { get; set; }

    /// <summary>The nested <c>_ep</c> entries recorded by <see cref="AddSelector"/>.</summary>
    public ReadOnlySpan<byte> Selectors => _selectors.AsSpan(0, SelectorsLength);

    /// <summary>Records one nested <c>_ep</c> entry (unescaped, with its leading '/').</summary>
    public void AddSelector(ReadOnlySpan<byte> selector)
    {
        if (SelectorsLength + 4 + selector.Length > _selectors.Length)
        {
            Array.Resize(ref _selectors, Math.Max(_selectors.Length * 2, SelectorsLength + 4 + selector.Length));
        }

        BitConverter.TryWriteBytes(_selectors.AsSpan(SelectorsLength, 4), selector.Length);
        selector.CopyTo(_selectors.AsSpan(SelectorsLength + 4));
        SelectorsLength += 4 + selector.Length;
    }

    public static DecryptionScan Rent()
    {
        for (int i = 0; i < s_pool.Length; i++)
        {
            DecryptionScan? scan = Interlocked.Exchange(ref s_pool[i], null);
            if (scan is not null)
            {
                return scan;
            }
        }

        return new DecryptionScan();
    }

    public static void Return(DecryptionScan scan)
    {
        scan.Reset();
        for (int i = 0; i < s_pool.Length; i++)
        {
            if (Interlocked.CompareExchange(ref s_pool[i], scan, null) is null)
            {
                return;
            }
        }
    }

    public ref DocumentRecord AddDocument()
    {
        if (DocumentCount == Documents.Length)
        {
            DocumentRecord[] documents = Documents;
            Array.Resize(ref documents, DocumentCount * 2);
            Documents = documents;
        }

        ref DocumentRecord document = ref Documents[DocumentCount++];
        document = default;
        return ref document;
    }

    public ref PropertyRecord AddProperty()
    {
        if (PropertyCount == Properties.Length)
        {
            PropertyRecord[] properties = Properties;
            Array.Resize(ref properties, PropertyCount * 2);
            Properties = properties;
        }

        return ref Properties[PropertyCount++];
    }

    /// <summary>Starts the <c>_ep</c> list of the next document to prepare.</summary>
    public void ResetPaths()
    {
        PathCount = 0;
        SelectorsLength = 0;
        PathTable.Clear();
    }

    public ref PathRecord AddPath()
    {
        if (PathCount == Paths.Length)
        {
            PathRecord[] paths = Paths;
            Array.Resize(ref paths, PathCount * 2);
            Paths = paths;
        }

        return ref Paths[PathCount++];
    }

    /// <summary>Reserves room for a name of at most <paramref name="maxLength"/> bytes in the name buffer.</summary>
    public Span<byte> GetNameSpace(int maxLength, out int offset)
    {
        if (NamesLength + maxLength > _names.Length)
        {
            Array.Resize(ref _names, Math.Max(_names.Length * 2, NamesLength + maxLength));
        }

        offset = NamesLength;
        return _names.AsSpan(NamesLength, maxLength);
    }

    /// <summary>Keeps the first <paramref name="length"/> bytes of the last reserved space.</summary>
    public void CommitName(int length) => NamesLength += length;

    /// <summary>The unescaped name of <paramref name="property"/>.</summary>
    public ReadOnlySpan<byte> GetName(ReadOnlySpan<byte> input, in PropertyRecord property) =>
        property.NameInBuffer
            ? _names.AsSpan(property.NameOffset, property.NameLength)
            : input.Slice(property.NameOffset, property.NameLength);

    public ReadOnlySpan<byte> GetPathName(in PathRecord path) => _names.AsSpan(path.NameOffset, path.NameLength);

    /// <summary>Forgets everything recorded (the arrays are kept).</summary>
    public void Reset()
    {
        // Drop references (key id strings) so that pooled scans keep nothing alive.
        Array.Clear(Documents, 0, DocumentCount);
        DocumentCount = 0;
        PropertyCount = 0;
        ArrayLength = 0;
        NamesLength = 0;
        ResetPaths();
        Debug.Assert(Documents.Length > 0, "Room for one document.");
    }
}
