using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Inspection;

/// <summary>
/// What one stored document says about its encryption, read by a processor without decrypting anything it does not
/// have to: its state, format, key, algorithm, binding, the paths its metadata lists with each one's encryption type,
/// and, against a policy, the first value at a policy position that the metadata does not list. Ids and flags only,
/// never a plaintext value. The one answer migration, its status query and the tool's <c>inspect</c> judge by.
/// </summary>
internal sealed record DocumentInspection
{
    /// <summary>Where the document stands.</summary>
    public required InspectedState State { get; init; }

    /// <summary>The <c>_ef</c> value (2, 3 or 101); 0 when <see cref="State"/> is not an encrypted one.</summary>
    public int FormatVersion { get; init; }

    /// <summary>The data encryption key id (<c>_en</c>), when encrypted.</summary>
    public string? KeyId { get; init; }

    /// <summary>The algorithm (<c>_ea</c>), when encrypted.</summary>
    public string? Algorithm { get; init; }

    /// <summary>Format 101 with <c>bind</c> in <c>_ev.crit</c>: every randomized cell is bound to this document.</summary>
    public bool Bound { get; init; }

    /// <summary>The listed paths: top-level ones first, in stored order, then the nested selectors (format 101).</summary>
    public IReadOnlyList<InspectedPath> Paths { get; init; } = [];

    /// <summary>
    /// Given a policy: the first non-null value at one of its positions that the metadata does not list (a value
    /// shaped like ciphertext wins over plaintext); <see langword="null"/> when there is none or no policy was given.
    /// </summary>
    public UnlistedValue? Unlisted { get; init; }

    /// <summary>
    /// Without <c>_ei</c>: whether the document still carries the anchor <c>_ex</c> only format 101 writes, so its
    /// envelope metadata is missing (removed, for example by a writer without encryption) rather than never there.
    /// Errors about its ciphertext say so, as the reader's do (PolicyReadCheck.CreateCellError).
    /// </summary>
    public bool EnvelopeMissing { get; init; }

    /// <summary>Why the first listed value typed <see cref="InspectedCellType.NotAuthentic"/> is so; else <see langword="null"/>.</summary>
    public EncryptionException? TypeError { get; init; }

    /// <summary>Format 101 with <c>qt</c> in <c>_ev.crit</c>: the document's <c>_q</c> holds query tokens.</summary>
    public bool HasQueryTokenFeature { get; init; }

    /// <summary>
    /// Whether the document has a top-level <c>_q</c> member (with <see cref="HasQueryTokenFeature"/>, its query
    /// tokens; without, an application's property that a policy with tokens refuses to write).
    /// </summary>
    public bool HasQueryTokenMember { get; init; }

    /// <summary>With <see cref="HasQueryTokenFeature"/>: the member names of <c>_q</c> in stored order (<see langword="null"/> when malformed).</summary>
    public IReadOnlyList<string>? QueryTokenMembers { get; init; }

    /// <summary>With <see cref="HasQueryTokenFeature"/>: why <c>_q</c> is not shaped as this library writes it; else <see langword="null"/>.</summary>
    public EncryptionException? QueryTokenError { get; init; }

    /// <summary>The document's <c>id</c> when it is a string (for messages), or <see langword="null"/>.</summary>
    public string? Id { get; init; }

    /// <summary>Why the document is <see cref="InspectedState.Unreadable"/>; <see langword="null"/> otherwise.</summary>
    public EncryptionException? Error { get; init; }

    /// <summary>Whether the document carries metadata this library reads (formats 2, 3 and 101).</summary>
    public bool Encrypted => State is InspectedState.Encrypted or InspectedState.LegacyBlob;

    /// <summary>Whether the metadata lists nested selectors (format 101).</summary>
    public bool HasNestedSelectors => Paths.Any(p => p.Nested);

    /// <summary>
    /// A document with metadata, as both processors report it: the top-level <paramref name="paths"/> already typed,
    /// then the nested <paramref name="selectors"/> (their values are many, so typed <see cref="InspectedCellType.Unchecked"/>).
    /// What the inspector found beside the metadata (unlisted values, the id, a type error, query tokens) it adds with
    /// <c>with</c>.
    /// </summary>
    public static DocumentInspection WithEnvelope(
        EnvelopeFormat format,
        string? keyId,
        string? algorithm,
        bool bound,
        List<InspectedPath> paths,
        DocumentSelectors? selectors)
    {
        foreach (string selector in selectors?.Texts ?? [])
        {
            paths.Add(new InspectedPath(selector, Nested: true, InspectedCellType.Unchecked));
        }

        return new DocumentInspection
        {
            State = format == EnvelopeFormat.LegacyBlob ? InspectedState.LegacyBlob : InspectedState.Encrypted,
            FormatVersion = CellTypes.FormatVersion(format),
            KeyId = keyId,
            Algorithm = algorithm,
            Bound = bound,
            Paths = paths,
        };
    }

    /// <summary>An unreadable document.</summary>
    public static DocumentInspection Unreadable(EncryptionException error) => new() { State = InspectedState.Unreadable, Error = error };
}

/// <summary>Where a stored document stands, as far as its metadata says.</summary>
internal enum InspectedState
{
    /// <summary>No metadata (no <c>_ei</c>, or <c>_ei: null</c>).</summary>
    Plaintext,

    /// <summary>Per-property encryption: format 3, or the extended format 101.</summary>
    Encrypted,

    /// <summary>The legacy whole-document blob (format 2).</summary>
    LegacyBlob,

    /// <summary>Metadata or JSON this library cannot read: a malformed envelope, an unknown format or feature, malformed JSON.</summary>
    Unreadable,
}

/// <summary>One path the metadata lists.</summary>
/// <param name="Path">As listed: <c>/name</c>, or a nested selector such as <c>/cards/[]/number</c>.</param>
/// <param name="Nested">Whether it is a nested selector (format 101).</param>
/// <param name="Type">How its value is encrypted, as far as it could be told.</param>
/// <param name="Tokens">Given a policy that declares query tokens for the path and the key: whether the value's tokens are its own.</param>
internal readonly record struct InspectedPath(string Path, bool Nested, InspectedCellType Type, InspectedTokens Tokens = InspectedTokens.Unchecked);

/// <summary>How a listed value is encrypted.</summary>
/// <remarks>
/// A bound cell says so in its version byte; whether an unbound cell's IV is the deterministic one is not in the cell:
/// only a key can tell (the value is decrypted in memory and its IV recomputed). Nested selectors cover many values
/// and are reported <see cref="Unchecked"/>.
/// </remarks>
internal enum InspectedCellType
{
    /// <summary>Listed, but absent or null in the document (or inside a legacy blob).</summary>
    Absent,

    /// <summary>An unbound cell whose IV was not checked (no key for it was given), or a nested selector.</summary>
    Unchecked,

    /// <summary>An unbound cell with the deterministic IV of its path.</summary>
    Deterministic,

    /// <summary>An unbound cell with any other IV.</summary>
    Randomized,

    /// <summary>A bound cell (randomized, its tag covering the document and the selector).</summary>
    Bound,

    /// <summary>A value the key given does not authenticate, or that is not a valid cell.</summary>
    NotAuthentic,
}

/// <summary>A value at a policy position that the document's metadata does not list.</summary>
/// <param name="Path">The policy path (its text) the value sits at.</param>
/// <param name="CellShaped">Whether the value is shaped like a cell: ciphertext whose metadata was lost, never plaintext.</param>
/// <param name="CellBase64">The cell-shaped value (base64, public), to find which key authenticates it; else <see langword="null"/>.</param>
internal sealed record UnlistedValue(string Path, bool CellShaped, byte[]? CellBase64);
