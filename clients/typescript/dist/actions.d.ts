import type { components } from "./schema.js";
type Schemas = components["schemas"];
/** The API version this client was generated from (info.version of Lineup's OpenAPI document). */
export declare const VERSION = "0.2.0";
/** An action's request fields: `action` is the method's own; `source` and `agent_id` may be the client's. */
export type Fields<R> = Omit<R, "action" | "source" | "agent_id"> & {
    source?: string | null;
    agent_id?: R extends {
        agent_id?: infer A;
    } ? A : never;
};
/** Lineup's actions as methods, each with its request's fields and its answer's `data` typed. */
export declare abstract class Actions {
    /** `data` of the action's answer on RESTAPI000; LineupError (or one of its kinds) otherwise. */
    abstract call(path: string, action: string, fields?: object): Promise<unknown>;
    /**
     * Activates a line created with activation_later=Y (a new SIM, esn or uiccid, may replace the attached one)
     * through its workflow's `activate` update, whose validator refuses any other state before it reaches history;
     * answers as customer creation does.
     *
     * `/customer` `activate_line`
     */
    activateLine(fields: Fields<Schemas["ActivateLine"]>): Promise<Schemas["ActivateLineAnswer"]["data"]>;
    /**
     * Adds a note to the customer that customer_id and enrollment_id both name; the author is the agent when one was
     * named, else the token's API user. A repeated request answers the first note's id.
     *
     * `/notes` `add_notes`
     */
    addNotes(fields: Fields<Schemas["AddNotes"]>): Promise<Schemas["AddNotesAnswer"]["data"]>;
    /**
     * The address standardized by USPS Publication 28 (`12 main street` → `12 MAIN ST`); a ZIP outside the state, a
     * city that is not one of the ZIP's, or a first line that is no street address is refused with why.
     *
     * `/address` `address_validation_usps`
     */
    addressValidationUsps(fields: Fields<Schemas["AddressValidationUsps"]>): Promise<Schemas["AddressValidationUspsAnswer"]["data"]>;
    /**
     * Stores the three proof images and where the agent is, sets a generated password on the agent (and on its API
     * user of the same name), ends that user's other tokens and e-mails the password through the outbox. A repeat
     * changes nothing again.
     *
     * `/auth` `agent_change_password`
     */
    agentChangePassword(fields: Fields<Schemas["AgentChangePassword"]>): Promise<void>;
    /**
     * The line's eSIM profile {ICCID, ACTIVATION_CODE, QR_ACTIVATION_CODE, QR_CODE_IMAGE}: the one it has, or one
     * the carrier reserves now (EsimAssignmentWorkflow, its activity sealing it in the line) for a line waiting for
     * activation without a SIM, which its activation then uses; asked again, the same. A physical SIM's line is
     * refused, as another vendor's enrollment id is (it names nothing).
     *
     * `/customer` `assign_esim`
     */
    assignEsim(fields: Fields<Schemas["AssignEsim"]>): Promise<Schemas["AssignEsimAnswer"]["data"]>;
    /**
     * The carrier's verdict on a device (by IMEI) in section 2.7's shape plus its native device block; a device the
     * carrier refuses (blacklisted) is RESTAPI110 with its description, and with the device's data.
     *
     * `/inventory` `check_device_compatibility`
     */
    checkDeviceCompatibility(fields: Fields<Schemas["CheckDeviceCompatibility"]>): Promise<Schemas["CheckDeviceCompatibilityAnswer"]["data"]>;
    /**
     * Issues a new, unused enrollment id for a ZIP the service covers, with its city and state as USPS names them.
     * The id is 'E' and 80 random bits in base32: unguessable, so ids cannot be enumerated.
     *
     * `/enrollment` `check_service_availability`
     */
    checkServiceAvailability(fields: Fields<Schemas["CheckServiceAvailability"]>): Promise<Schemas["CheckServiceAvailabilityAnswer"]["data"]>;
    /**
     * Confirms a signature is on file under one of the vendor's open login-log entries: the named one (for
     * enroll_id, when given), or without signature_id the acting agent's.
     *
     * `/agent` `check_signature`
     */
    checkSignature(fields: Fields<Schemas["CheckSignature"]>): Promise<void>;
    /**
     * The carriers the company sells on, with the carrier's own numeric ids (query_portin takes either).
     *
     * `/enrollment` `company_carrier_list`
     */
    companyCarrierList(fields?: Fields<Schemas["CompanyCarrierList"]>): Promise<Schemas["CompanyCarrierListAnswer"]["data"]>;
    /**
     * Creates prepaid customers, one per line, under a parent account (1 to LINEUP_MAX_LINES lines): accepted all or
     * nothing, then the enrollment's workflow is started (or found, for a repeated request) and waited for.
     *
     * `/customer` `create_customer_prepaid_multiline`
     */
    createCustomerPrepaidMultiline(fields: Fields<Schemas["CreateMultiline"]>): Promise<Schemas["CreateCustomerPrepaidMultilineAnswer"]["data"]>;
    /**
     * Ports a number into a line created without PORTIN: a line waiting for activation is activated on the ported
     * number; an ACTIVE line keeps its number until the port completes, then takes the ported one. The port order is
     * stored (old-account data encrypted); the port's workflow submits and follows it, and the answer comes once the
     * carrier took the port (or within the create's wait, saying it has not answered).
     *
     * `/port` `create_portin_v2_when_create_customer_was_called_without_portin_tag`
     */
    createPortinV2WhenCreateCustomerWasCalledWithoutPortinTag(fields: Fields<Schemas["CreatePortin"]>): Promise<Schemas["CreatePortinV2WhenCreateCustomerWasCalledWithoutPortinTagAnswer"]["data"]>;
    /**
     * The calling vendor's customers matching an enrollment id, a customer id or an e-mail (which may match
     * several), one element per line of their accounts: the matching lines first, then their accounts' other lines,
     * oldest first.
     *
     * `/customer` `customer_info`
     */
    customerInfo(fields?: Fields<Schemas["CustomerInfo"]>): Promise<Schemas["CustomerInfoAnswer"]["data"]>;
    /**
     * The ZIP code's city (USPS's preferred name, in capitals) and state; a ZIP USPS does not list is refused.
     *
     * `/address` `get_city_state`
     */
    getCityState(fields: Fields<Schemas["GetCityState"]>): Promise<Schemas["GetCityStateAnswer"]["data"]>;
    /**
     * The port orders of line `enroll_id`, or with get_child_list Y of every line of its account; the old account
     * number shown by its last 4 digits only.
     *
     * `/port` `get_list`
     */
    getList(fields: Fields<Schemas["GetPortList"]>): Promise<Schemas["GetListAnswer"]["data"]>;
    /**
     * Asks the carrier about a line, as the flags select (none set: everything); a number the carrier does not hold
     * for the vendor (909) passes through as the carrier said it.
     *
     * `/customer` `line_inquiry`
     */
    lineInquiry(fields: Fields<Schemas["LineInquiry"]>): Promise<Schemas["LineInquiryAnswer"]["data"]>;
    /**
     * The vendor's lines waiting for support (STUCK, or RECEIVED and never started), with their last error, longest
     * waiting first.
     *
     * `/ops` `list_stuck_enrollments`
     */
    listStuckEnrollments(fields?: Fields<Schemas["ListStuckEnrollments"]>): Promise<Schemas["ListStuckEnrollmentsAnswer"]["data"]>;
    /**
     * The vendor's mail support should look at: REJECTED (refused, unbuildable or past LINEUP_MAIL_MAX_AGE_HOURS) or
     * QUEUED for longer than the sweep's grace, with why, oldest first.
     *
     * `/ops` `list_undelivered_mail`
     */
    listUndeliveredMail(fields?: Fields<Schemas["ListUndeliveredMail"]>): Promise<Schemas["ListUndeliveredMailAnswer"]["data"]>;
    /**
     * Ends the session the token belongs to: its login-log OTP closes and its tokens stop working, the one this
     * answer carries included; the next call needs a new /authenticate. Needs nothing but the token.
     *
     * `/auth` `logout`
     */
    logout(fields?: Fields<Schemas["Logout"]>): Promise<void>;
    /**
     * Pays plans' prices plus tax (`plan_id` one plan or a list, each for its months): by card (the CVV goes to the
     * gateway and nowhere else), or recorded as paid elsewhere (OTHER_PAYMENT_OPTION with the processor's reference,
     * or CASH; either needs the payments role). A repeated request returns the first result; a declined card may be
     * tried again; a processor reference is recorded once per vendor.
     *
     * `/payment` `make_payment`
     */
    makePayment(fields: Fields<Schemas["MakePayment"]>): Promise<Schemas["MakePaymentAnswer"]["data"]>;
    /**
     * activate_line as the mobile channels call it: the line waiting for activation gets a new number in the area of
     * `zip_code` (a SIM sent with it replaces the attached one).
     *
     * `/inventory` `new_number_activation_with_zip_code`
     */
    newNumberActivationWithZipCode(fields: Fields<Schemas["NewNumberActivation"]>): Promise<Schemas["NewNumberActivationWithZipCodeAnswer"]["data"]>;
    /**
     * NLAD's answer about the subscriber, as it gave it; the check is recorded for tpiv_listing (never the SSN), and
     * the subject travels sealed, so no workflow history holds it.
     *
     * `/nlad` `nlad_etc_check`
     */
    nladEtcCheck(fields: Fields<Schemas["NladEtcCheck"]>): Promise<Schemas["NladEtcCheckAnswer"]["data"]>;
    /**
     * What make_payment would charge for plans (one or a list, each for its months) where the customer lives (a ZIP,
     * or an enrollment id's): prices, the same carrier tax by name, total. Coupons are recorded by make_payment but
     * discount nothing, so a coupon code changes no figure here.
     *
     * `/payment` `payment_details`
     */
    paymentDetails(fields: Fields<Schemas["PaymentDetails"]>): Promise<Schemas["PaymentDetailsAnswer"]["data"]>;
    /**
     * The plans a channel can sell: every active plan, one plan, or those sold in a ZIP (every covered ZIP sells
     * them all).
     *
     * `/plan` `plan_list`
     */
    planList(fields?: Fields<Schemas["PlanList"]>): Promise<Schemas["PlanListAnswer"]["data"]>;
    /**
     * The status of a pending port-in order, named by its enrollment id, ESN or SIM and number together: from the
     * port's workflow (no carrier call), or from the database once it is gone.
     *
     * `/port` `query_portin`
     */
    queryPortin(fields: Fields<Schemas["QueryPortin"]>): Promise<Schemas["QueryPortinAnswer"]["data"]>;
    /**
     * Resumes one waiting line (`enrollment_id`), or with `all_stuck` Y every matching waiting line of the vendor
     * (narrowed by `error_contains` and `stuck_minutes`), at most MOST_RETRIED a call: a stuck line's workflow tries
     * its failed step again, a line that never started has its order's workflow started.
     *
     * `/ops` `retry_enrollment`
     */
    retryEnrollment(fields?: Fields<Schemas["RetryEnrollment"]>): Promise<Schemas["RetryEnrollmentAnswer"]["data"]>;
    /**
     * Stores the acting agent's signature image, optionally for one enrollment; a repeated request answers the first
     * one's id.
     *
     * `/agent` `save_signature`
     */
    saveSignature(fields: Fields<Schemas["SaveSignature"]>): Promise<Schemas["SaveSignatureAnswer"]["data"]>;
    /**
     * A customer's saved cards (make_payment saved them), masked, oldest (the primary) first; card_id restricts the
     * list to that card. The customer logs in with the line's e-mail and password.
     *
     * `/cards` `saved_card_list`
     */
    savedCardList(fields: Fields<Schemas["SavedCardList"]>): Promise<Schemas["SavedCardListAnswer"]["data"]>;
    /**
     * Sends an HTML e-mail to 1 to 50 recipients, once per idempotency key, waiting up to LINEUP_MAIL_WAIT_SECONDS
     * for the relay: a repeated request finds the same outbox row and workflow, so it never sends a second e-mail.
     *
     * `/mail` `send`
     */
    send(fields: Fields<Schemas["Send"]>): Promise<void>;
    /**
     * The mobile channels' update_portin: corrections for port `portin_enrollment_id` (its port_subscriber_id, or
     * its line's enrollment id) of the account of `enrollment_id` (a line of it, or its holder), resubmitted by the
     * port's workflow.
     *
     * `/port` `submit_portin`
     */
    submitPortin(fields: Fields<Schemas["SubmitPortin"]>): Promise<Schemas["SubmitPortinAnswer"]["data"]>;
    /**
     * The caller's recorded identity-verification (TPIV) failures for a ZIP (5 to 8 digits), newest first. Checks
     * are recorded with 5-digit ZIPs, so a longer ZIP is matched on its first five.
     *
     * `/nlad` `tpiv_listing`
     */
    tpivListing(fields: Fields<Schemas["TpivListing"]>): Promise<Schemas["TpivListingAnswer"]["data"]>;
    /**
     * Records where an agent is, against the session's login-log entry when its OTP is given.
     *
     * `/agent` `update_location_coordinate`
     */
    updateLocationCoordinate(fields: Fields<Schemas["UpdateLocationCoordinate"]>): Promise<void>;
    /**
     * Corrected old-account data (any subset) for a port the carrier marked RESOLUTION_REQUIRED: stored encrypted,
     * and resubmitted by the port's workflow.
     *
     * `/port` `update_portin`
     */
    updatePortin(fields: Fields<Schemas["UpdatePortin"]>): Promise<Schemas["UpdatePortinAnswer"]["data"]>;
    /**
     * Marks a tax calculation collected: `temporary` (provisional) or `final` (closes it), through its workflow's
     * update, whose validator refuses a bad move; a final calculation is answered from the database.
     *
     * `/payment` `update_tax_calculation_status_plum`
     */
    updateTaxCalculationStatusPlum(fields: Fields<Schemas["UpdateTaxCalculationStatus"]>): Promise<Schemas["UpdateTaxCalculationStatusPlumAnswer"]["data"]>;
    /**
     * Whether a number can be ported in, and the carrier it is with now: the carrier's answer.
     *
     * `/inventory` `validate_portin`
     */
    validatePortin(fields: Fields<Schemas["ValidatePortin"]>): Promise<Schemas["ValidatePortinAnswer"]["data"]>;
}
export {};
