namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>
/// Items the sent query adds to the outermost SELECT list (before its first item) so that every row carries what the
/// container needs to decrypt the policy values it projects: <c>c._ei</c> and, for format 101, <c>c._ex</c>. The
/// container's decryption removes both from each row, so the application sees exactly the items it asked for.
/// </summary>
/// <param name="Position">Where the items go: the start of the first SELECT item.</param>
/// <param name="Text">The items, each followed by a comma (<c>c._ei, c._ex, </c>).</param>
internal sealed record EnvelopeInsertion(int Position, string Text);
