namespace Encryption.Custom.Tests.PublicApi;

/// <summary>An extension method, which the public API listing marks with <c>this</c>.</summary>
public static class ListingSubjectExtensions
{
    public static bool IsNamed(this ListingSubject subject, string name) => subject.Name == name;
}
